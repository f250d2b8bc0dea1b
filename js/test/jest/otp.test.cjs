// An e-mail OTP login under Jest: the code read from the outbox, the session checked with the
// emulator's notarizer key under its override name.
const { encryptOtpCodeToBundle, verifySessionJwtSignature } = require("@turnkey/crypto");
const { p256 } = require("@noble/curves/p256");
const { sha256 } = require("@noble/hashes/sha256");
const { bytesToHex } = require("@noble/hashes/utils");
const { emulator, isolateEachTest } = require("turnkey-emulator/jest");

isolateEachTest();

test("init_otp, the code from the outbox, verify_otp, otp_login", async () => {
  const emu = await emulator();
  const client = emu.turnkey.apiClient();
  const email = "lin@example.com";
  const { subOrganizationId } = await client.createSubOrganization({
    subOrganizationName: "Lin",
    rootQuorumThreshold: 1,
    rootUsers: [{ userName: "Lin", userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
  });
  const started = await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: email, appName: "Kit" });
  const code = await emu.control.outbox.nextOtpCode(email, { after: null });
  expect(code).toMatch(/^[0-9A-Z]{9}$/); // the SDK's default: 9 characters, alphanumeric

  const privateKey = p256.utils.randomPrivateKey();
  const publicKey = bytesToHex(p256.getPublicKey(privateKey, true));
  const encryptedOtpBundle = await encryptOtpCodeToBundle(
    code,
    started.otpEncryptionTargetBundle,
    publicKey,
    emu.info.tlsFetcherPublicKey,
  );
  const { verificationToken } = await client.verifyOtp({ otpId: started.otpId, encryptedOtpBundle });
  const claims = JSON.parse(Buffer.from(verificationToken.split(".")[1], "base64url").toString());
  const message = JSON.stringify({ login: { publicKey }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
  const signature = p256.sign(sha256(new TextEncoder().encode(message)), privateKey).toCompactHex();
  const { session } = await client.otpLogin({
    organizationId: subOrganizationId,
    verificationToken,
    publicKey,
    clientSignature: { publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature },
  });
  expect(await verifySessionJwtSignature(session, emu.overrides.dangerouslyOverrideNotarizerPublicKey)).toBe(true);
});

test("the outbox is empty again in the next test", async () => {
  const emu = await emulator();
  expect(await emu.control.outbox.list()).toEqual([]);
});
