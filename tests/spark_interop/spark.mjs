// Runs one Spark SDK check named by argv[2] on the JSON of stdin (hex strings), prints JSON.
// Driven by tests/test_spark_interop.py; the SDK's WASM does FROST, ECIES and Feldman VSS.
import { getSparkFrost, decodeSparkAddress, encodeSparkAddress } from "@buildonspark/spark-sdk";
import {
  SendLeafKeyTweaks,
  ClaimLeafKeyTweaks,
  SecretShare,
} from "@buildonspark/spark-sdk/proto/spark";
import { decrypt as eciesjsDecrypt } from "eciesjs";

const hex = (b) => Buffer.from(b).toString("hex");
const bytes = (h) => Uint8Array.from(Buffer.from(h, "hex"));
const commitment = (c) => ({ hiding: bytes(c.hiding), binding: bytes(c.binding) });
const mapValues = (o, f) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
const frost = getSparkFrost();

const share = (s) => ({
  secretShare: hex(s.secretShare),
  proofs: s.proofs.map(hex),
});

const checks = {
  async aggregate(input) {
    const signature = await frost.aggregateFrost({
      message: bytes(input.message),
      statechainCommitments: mapValues(input.operatorCommitments, commitment),
      selfCommitment: commitment(input.selfCommitment),
      statechainSignatures: mapValues(input.operatorShares, bytes),
      selfSignature: bytes(input.selfShare),
      statechainPublicKeys: mapValues(input.operatorPublicKeys, bytes),
      selfPublicKey: bytes(input.selfPublicKey),
      verifyingKey: bytes(input.verifyingKey),
      adaptorPubKey: input.adaptorPublicKey ? bytes(input.adaptorPublicKey) : undefined,
    });
    return { signature: hex(signature) };
  },
  async sign(input) {
    const share = await frost.signFrost({
      message: bytes(input.message),
      keyPackage: {
        secretKey: bytes(input.secretKey),
        publicKey: bytes(input.publicKey),
        verifyingKey: bytes(input.verifyingKey),
      },
      nonce: commitment(input.nonce),
      selfCommitment: commitment(input.selfCommitment),
      statechainCommitments: mapValues(input.operatorCommitments, commitment),
      adaptorPubKey: input.adaptorPublicKey ? bytes(input.adaptorPublicKey) : undefined,
    });
    return { share: hex(share) };
  },
  async applyAdaptor(input) {
    const signature = await frost.applyAdaptorToSignature(
      bytes(input.publicKey),
      bytes(input.message),
      bytes(input.signature),
      bytes(input.adaptorPrivateKey),
    );
    return { signature: hex(signature) };
  },
  async validateShare(input) {
    try {
      await frost.validateShare(bytes(input.share), input.index, input.threshold, input.proofs.map(bytes));
      return { valid: true };
    } catch (e) {
      return { valid: false, error: String(e) };
    }
  },
  async recover(input) {
    const secret = await frost.recoverSecret(
      input.shares.map((s) => ({ threshold: s.threshold, index: s.index, share: bytes(s.share) })),
    );
    return { secret: hex(secret) };
  },
  async decryptSdk(input) {
    return { plaintext: hex(await frost.decryptEcies(bytes(input.ciphertext), bytes(input.privateKey))) };
  },
  async decryptEciesjs(input) {
    return { plaintext: hex(eciesjsDecrypt(bytes(input.privateKey), bytes(input.ciphertext))) };
  },
  async decodeSend(input) {
    const message = SendLeafKeyTweaks.decode(bytes(input.proto));
    return {
      leaves: message.leavesToSend.map((l) => ({
        leafId: l.leafId,
        secretShareTweak: share(l.secretShareTweak),
        pubkeySharesTweak: mapValues(l.pubkeySharesTweak, hex),
        secretCipher: hex(l.secretCipher),
        signature: hex(l.signature),
        refundSignature: hex(l.refundSignature),
        directRefundSignature: hex(l.directRefundSignature),
        directFromCpfpRefundSignature: hex(l.directFromCpfpRefundSignature),
      })),
    };
  },
  async decodeClaim(input) {
    const message = ClaimLeafKeyTweaks.decode(bytes(input.proto));
    return {
      leaves: message.leavesToReceive.map((l) => ({
        leafId: l.leafId,
        secretShareTweak: share(l.secretShareTweak),
        pubkeySharesTweak: mapValues(l.pubkeySharesTweak, hex),
      })),
    };
  },
  async decodeShare(input) {
    return share(SecretShare.decode(bytes(input.proto)));
  },
  async decodeAddress(input) {
    const decoded = decodeSparkAddress(input.address, input.network);
    return { identityPublicKey: decoded.identityPublicKey, network: decoded.network };
  },
  async encodeAddress(input) {
    return { address: encodeSparkAddress({ identityPublicKey: input.identityPublicKey, network: input.network }) };
  },
};

let data = "";
process.stdin.on("data", (chunk) => (data += chunk));
process.stdin.on("end", async () => {
  try {
    const inputs = JSON.parse(data);
    const out = [];
    for (const input of inputs) out.push(await checks[process.argv[2]](input));
    process.stdout.write(JSON.stringify(out));
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }));
  }
});
