// The kit under Vitest against a real `python -m emulator serve`: the run's emulator, the
// per-test restore, @turnkey/sdk-server, @turnkey/viem and @turnkey/solana through it, an OTP
// login read from the outbox, and the control plane's seams.
import { describe, expect, test } from "vitest";
import { DEFAULT_ETHEREUM_ACCOUNTS, DEFAULT_SOLANA_ACCOUNTS } from "@turnkey/sdk-server";
import { createAccount } from "@turnkey/viem";
import { TurnkeySigner } from "@turnkey/solana";
import { encryptOtpCodeToBundle, verifySessionJwtSignature } from "@turnkey/crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex } from "@noble/hashes/utils";
import { PublicKey } from "@solana/web3.js";
import { recoverMessageAddress } from "viem";
import { ControlError } from "turnkey-emulator";
import { emulator, isolateEachTest } from "turnkey-emulator/vitest";

isolateEachTest();

const walletNames = async () => {
  const emu = await emulator();
  const { wallets } = await emu.turnkey.apiClient().getWallets({});
  return wallets.map((wallet) => wallet.walletName);
};

describe("the run's emulator", () => {
  test("hands @turnkey/sdk-server a client of the root user", async () => {
    const emu = await emulator();
    expect(emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const whoami = await emu.turnkey.apiClient().getWhoami({});
    expect(whoami.organizationId).toBe(emu.organizationId);
    expect(whoami.userId).toBe(emu.userId);
    expect(emu.overrides.dangerouslyOverrideSignerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(emu.overrides.dangerouslyOverrideSignerPublicKey).toBe(emu.info.signerPublicKey);
    const info = await emu.control.info();
    expect(info.apiPublicKey).toBe(emu.apiPublicKey);
    expect(JSON.stringify(info)).not.toContain(emu.apiPrivateKey);
  });

  test("a wallet made in one test...", async () => {
    const emu = await emulator();
    await emu.turnkey.apiClient().createWallet({ walletName: "made in a test", accounts: DEFAULT_ETHEREUM_ACCOUNTS });
    expect(await walletNames()).toEqual(["made in a test"]);
  });

  test("...is gone in the next (the world restored)", async () => {
    expect(await walletNames()).toEqual([]);
  });
});

describe("the chain packages through it", () => {
  test("@turnkey/viem signs a message that viem recovers", async () => {
    const emu = await emulator();
    const client = emu.turnkey.apiClient();
    const { addresses } = await client.createWallet({ walletName: "viem", accounts: DEFAULT_ETHEREUM_ACCOUNTS });
    const account = await createAccount({ client, organizationId: emu.organizationId, signWith: addresses[0]! });
    expect(account.address.toLowerCase()).toBe(addresses[0]!.toLowerCase());
    const signature = await account.signMessage({ message: "hello from vitest" });
    expect(await recoverMessageAddress({ message: "hello from vitest", signature })).toBe(account.address);
  });

  test("@turnkey/solana signs a message that ed25519 verifies; the funding seam", async () => {
    const emu = await emulator();
    const client = emu.turnkey.apiClient();
    const { addresses } = await client.createWallet({ walletName: "solana", accounts: DEFAULT_SOLANA_ACCOUNTS });
    const address = addresses[0]!;
    const signer = new TurnkeySigner({ organizationId: emu.organizationId, client });
    const message = new TextEncoder().encode("hello from vitest");
    const signature = await signer.signMessage(message, address);
    expect(ed25519.verify(signature, message, new PublicKey(address).toBytes())).toBe(true);
    const funded = await emu.control.chains.fund("solana:mainnet", address, 2_000_000_000n);
    expect(funded.balance).toBe(2_000_000_000n);
    expect((await emu.control.chains.balance("solana:mainnet", address)).balance).toBe(2_000_000_000n);
  });
});

describe("an OTP login, the code read from the outbox", () => {
  test("init_otp, verify_otp, otp_login: a session the notarizer signed", async () => {
    const emu = await emulator();
    const client = emu.turnkey.apiClient();
    const email = "ada@example.com";
    const { subOrganizationId } = await client.createSubOrganization({
      subOrganizationName: "Ada",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "Ada", userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
    });
    const inbox = await emu.control.outbox.watch(email);
    const started = await client.initOtp({
      otpType: "OTP_TYPE_EMAIL", contact: email, appName: "Kit", otpLength: 6, alphanumeric: false,
    });
    const sent = await inbox.next();
    expect(sent.template).toMatch(/otp/i);
    expect(sent.fields.otpId).toBe(started.otpId);
    const code = String(sent.fields.otpCode);
    expect(code).toMatch(/^\d{6}$/);

    const privateKey = p256.utils.randomPrivateKey();
    const publicKey = bytesToHex(p256.getPublicKey(privateKey, true));
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code, started.otpEncryptionTargetBundle!, publicKey, emu.info.tlsFetcherPublicKey,
    );
    const { verificationToken } = await client.verifyOtp({ otpId: started.otpId, encryptedOtpBundle });
    const claims = JSON.parse(Buffer.from(verificationToken.split(".")[1]!, "base64url").toString());
    const message = JSON.stringify({ login: { publicKey }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
    const signature = p256.sign(sha256(new TextEncoder().encode(message)), privateKey).toCompactHex();
    const { session } = await client.otpLogin({
      organizationId: subOrganizationId,
      verificationToken,
      publicKey,
      clientSignature: { publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature },
    });
    expect(await verifySessionJwtSignature(session, emu.overrides.dangerouslyOverrideNotarizerPublicKey)).toBe(true);
    const sessionClaims = JSON.parse(Buffer.from(session.split(".")[1]!, "base64url").toString());
    expect(sessionClaims.organization_id).toBe(subOrganizationId);
  });

  test("waitForNext times out with a 408 when nothing is sent", async () => {
    const emu = await emulator();
    const error = await emu.control.outbox.waitForNext("nobody@example.com", { timeoutMs: 100 }).catch((e) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error.status).toBe(408);
  });
});

describe("the control plane's seams", () => {
  test("faults make the next call fail, and the call log shows it", async () => {
    const emu = await emulator();
    const pending = await emu.control.faults.failNext({ operation: "get_whoami", status: 503, message: "try later" });
    expect(pending).toHaveLength(1);
    const error = await emu.turnkey.apiClient().getWhoami({}).catch((e) => e);
    expect(String(error.message)).toContain("try later");
    await emu.turnkey.apiClient().getWhoami({});
    const calls = await emu.control.calls.list({ operation: "get_whoami" });
    expect(calls.map((call) => call.httpStatus)).toEqual([503, 200]);
  });

  test("pending faults and the call log are cleared between tests", async () => {
    const emu = await emulator();
    expect(await emu.control.calls.list()).toEqual([]);
    await emu.turnkey.apiClient().getWhoami({});
  });

  test("the clock freezes and advances", async () => {
    const emu = await emulator();
    const frozen = await emu.control.clock.freeze(1_700_000_000_000);
    expect(frozen).toEqual({ nowMs: 1_700_000_000_000, frozen: true });
    expect(await emu.control.clock.advance(90)).toEqual({ nowMs: 1_700_000_090_000, frozen: true });
  });

  test("...and the restore puts it back", async () => {
    const emu = await emulator();
    const now = await emu.control.clock.now();
    expect(now.frozen).toBe(false);
    expect(Math.abs(now.nowMs - Date.now())).toBeLessThan(60_000);
  });

  test("Auth Proxy configurations and bad requests", async () => {
    const emu = await emulator();
    const config = await emu.control.authProxy.configure({ enabledProviders: ["email"], otpLength: 8 });
    expect(config.organizationId).toBe(emu.organizationId);
    const answer = await fetch(`${emu.baseUrl}/authproxy/v1/wallet_kit_config`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-ID": config.configId },
      body: "{}",
    });
    expect((await answer.json()).enabledProviders).toEqual(["email"]);
    const error = await emu.control.chains.fund("eip155:1", "not an address", 1).catch((e) => e);
    expect([error.status, error.code, error.message]).toEqual([400, 3, "'not an address' is not an address of eip155:1"]);
    const missing = await emu.control.restore("snapshot-999").catch((e) => e);
    expect([missing.status, missing.message]).toEqual([404, "no snapshot 'snapshot-999'"]);
  });

  test("webhooks: none delivered, the switch set", async () => {
    const emu = await emulator();
    expect(await emu.control.webhooks.list()).toEqual([]);
    expect(await emu.control.webhooks.run({ synchronous: true, timeoutSeconds: 1 })).toEqual({ settled: true, synchronous: true });
  });
});
