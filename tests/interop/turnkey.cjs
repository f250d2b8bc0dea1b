// Runs the official @turnkey/* packages on a batch of commands for tests/test_ts_interop.py.
// Input (argv[2]): a JSON file with a list of {"op": ..., ...args}; output: a JSON list of
// {"ok": result} or {"error": message}, one per command, in order.
"use strict";
const fs = require("fs");
const tkCrypto = require("@turnkey/crypto");
const { TurnkeyClient, createActivityPoller } = require("@turnkey/http");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { uint8ArrayToHexString } = require("@turnkey/encoding");

const ops = {
  generateP256KeyPair: () => tkCrypto.generateP256KeyPair(),
  decryptCredentialBundle: (a) => tkCrypto.decryptCredentialBundle(a.bundle, a.embeddedKey),
  decryptExportBundle: (a) =>
    tkCrypto.decryptExportBundle({
      exportBundle: a.exportBundle,
      embeddedKey: a.embeddedKey,
      organizationId: a.organizationId,
      dangerouslyOverrideSignerPublicKey: a.signerPublicKey,
      keyFormat: a.keyFormat || "HEXADECIMAL",
      returnMnemonic: !!a.returnMnemonic,
    }),
  encryptWalletToBundle: (a) =>
    tkCrypto.encryptWalletToBundle({
      mnemonic: a.mnemonic,
      importBundle: a.importBundle,
      userId: a.userId,
      organizationId: a.organizationId,
      dangerouslyOverrideSignerPublicKey: a.signerPublicKey,
    }),
  encryptPrivateKeyToBundle: (a) =>
    tkCrypto.encryptPrivateKeyToBundle({
      privateKey: a.privateKey,
      keyFormat: a.keyFormat || "HEXADECIMAL",
      importBundle: a.importBundle,
      userId: a.userId,
      organizationId: a.organizationId,
      dangerouslyOverrideSignerPublicKey: a.signerPublicKey,
    }),
  encryptOtpCodeToBundle: (a) =>
    tkCrypto.encryptOtpCodeToBundle(
      a.otpCode,
      a.otpEncryptionTargetBundle,
      a.publicKey,
      a.signerPublicKey,
    ),
  encryptSecretToBundle: (a) =>
    tkCrypto.encryptSecretToBundle({
      plaintext: a.plaintext,
      ingressTargetBundle: a.ingressTargetBundle,
      organizationId: a.organizationId,
      dangerouslyOverrideSignerPublicKey: a.signerPublicKey,
    }),
  decryptSecretBundle: (a) =>
    tkCrypto.decryptSecretBundle({
      secretPayload: a.secretPayload,
      embeddedPrivateKey: a.embeddedPrivateKey,
      organizationId: a.organizationId,
      dangerouslyOverrideSignerPublicKey: a.signerPublicKey,
    }),
  encryptOauth2ClientSecret: (a) =>
    tkCrypto.encryptOauth2ClientSecret(a.clientSecret, a.tlsFetcherPublicKey),
  encryptOnRampSecret: (a) => tkCrypto.encryptOnRampSecret(a.secret, a.onRampPublicKey),
  verifySessionJwtSignature: (a) => tkCrypto.verifySessionJwtSignature(a.jwt, a.notarizerPublicKey),
  verifyOtpVerificationToken: (a) => tkCrypto.verifyOtpVerificationToken(a.jwt, a.signerPublicKey),
  getPublicKey: (a) => uint8ArrayToHexString(tkCrypto.getPublicKey(a.privateKey, true)),
  // Webhook deliveries and proofs (issue 16): the official verifiers, as a receiver runs them.
  verifyTurnkeyWebhookSignature: (a) =>
    tkCrypto.verifyTurnkeyWebhookSignature({
      headers: a.headers,
      body: Buffer.from(a.bodyBase64, "base64"),
      verificationKeys: a.verificationKeys,
      maxTimestampAgeMs: a.maxTimestampAgeMs,
      nowMs: a.nowMs,
    }),
  verifyAppProofSignature: (a) => {
    tkCrypto.verifyAppProofSignature(a.appProof);
    return true;
  },
  // The boot proof's own checks that need no AWS root: the COSE_Sign1 signature by the
  // attestation document's certificate, and PCR17's commitment to the manifest and key.
  checkBootProofAttestation: async (a) => {
    const CBOR = require("cbor-js");
    const der = Uint8Array.from(Buffer.from(a.bootProof.awsAttestationDocB64, "base64"));
    const cose = CBOR.decode(der.buffer);
    const doc = CBOR.decode(new Uint8Array(cose[2]).buffer);
    await tkCrypto.verifyCoseSign1Sig(cose, doc.certificate);
    const pcr17 = tkCrypto.computeQosLiveManifestCommitmentPcr(
      new Uint8Array(doc.user_data),
      new Uint8Array(doc.public_key),
    );
    return {
      publicKey: uint8ArrayToHexString(new Uint8Array(doc.public_key)),
      pcr17Matches: uint8ArrayToHexString(pcr17) === uint8ArrayToHexString(doc.pcrs[17]),
      digest: doc.digest,
    };
  },
  verifyProofPair: async (a) => {
    await tkCrypto.verify(a.appProof, a.bootProof);
    return true;
  },
  // An official TurnkeyClient with an API key stamper, calling the emulator's server.
  call: async (a) => {
    const stamper = new ApiKeyStamper({
      apiPublicKey: a.apiPublicKey,
      apiPrivateKey: a.apiPrivateKey,
    });
    const client = new TurnkeyClient({ baseUrl: a.baseUrl }, stamper);
    return await client[a.method](a.body);
  },
  // The same call through the package's activity poller: the completed activity, or what
  // the poller threw (its TurnkeyActivityError's status and activity id).
  poll: async (a) => {
    const stamper = new ApiKeyStamper({
      apiPublicKey: a.apiPublicKey,
      apiPrivateKey: a.apiPrivateKey,
    });
    const client = new TurnkeyClient({ baseUrl: a.baseUrl }, stamper);
    const poller = createActivityPoller({ client, requestFn: client[a.method].bind(client) });
    try {
      return { activity: await poller(a.body) };
    } catch (e) {
      return { thrown: e.message, activityId: e.activityId, activityStatus: e.activityStatus };
    }
  },
  // Any path, through the client's generic `request` (for operations newer than its methods).
  request: async (a) => {
    const stamper = new ApiKeyStamper({
      apiPublicKey: a.apiPublicKey,
      apiPrivateKey: a.apiPrivateKey,
    });
    return await new TurnkeyClient({ baseUrl: a.baseUrl }, stamper).request(a.path, a.body);
  },
  // The same call `times` times from one client, one after the other (fetch keeps the
  // connection alive between them).
  callMany: async (a) => {
    const stamper = new ApiKeyStamper({
      apiPublicKey: a.apiPublicKey,
      apiPrivateKey: a.apiPrivateKey,
    });
    const client = new TurnkeyClient({ baseUrl: a.baseUrl }, stamper);
    const results = [];
    for (let i = 0; i < a.times; i++) results.push(await client[a.method](a.body));
    return results;
  },
};

async function main() {
  const commands = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const results = [];
  for (const command of commands) {
    try {
      const op = ops[command.op];
      if (!op) throw new Error(`unknown op ${command.op}`);
      results.push({ ok: await op(command) });
    } catch (err) {
      results.push({ error: String((err && err.message) || err) });
    }
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err));
  process.exit(1);
});
