// The test page's script: the official @turnkey/core in a browser, against a served emulator
// and its Auth Proxy. tests/test_browser_auth_proxy.py bundles it with esbuild and calls
// window.tk.<step>(...) from a headless Chromium; each step answers plain JSON.
import { TurnkeyClient } from "@turnkey/core";
import {
  decryptExportBundle,
  encryptOtpCodeToBundle,
  generateP256KeyPair,
} from "@turnkey/crypto";

let client;
let emulator; // { signerPublicKey, tlsFetcherPublicKey, organizationId }

function plain(value) {
  return JSON.parse(JSON.stringify(value));
}

async function start(config) {
  emulator = config;
  client = new TurnkeyClient({
    apiBaseUrl: config.apiBaseUrl,
    authProxyUrl: config.authProxyUrl,
    authProxyConfigId: config.authProxyConfigId,
    organizationId: config.organizationId,
    passkeyConfig: { rpId: window.location.hostname, rpName: "Emulator test page" },
  });
  await client.init();
  return plain(await client.getProxyAuthConfig());
}

async function signUpWithPasskey(userName) {
  const result = await client.signUpWithPasskey({
    passkeyDisplayName: `${userName} passkey`,
    createSubOrgParams: { userName },
  });
  const session = await client.getSession();
  return { credentialId: result.credentialId, session: plain(session) };
}

async function logout() {
  await client.logout();
  return { session: (await client.getSession()) ?? null };
}

async function loginWithPasskey() {
  const result = await client.loginWithPasskey({});
  return { credentialId: result.credentialId, session: plain(await client.getSession()) };
}

async function createWallet(walletName) {
  const walletId = await client.createWallet({
    walletName,
    accounts: ["ADDRESS_FORMAT_ETHEREUM"],
  });
  const wallets = await client.fetchWallets();
  const wallet = wallets.find((w) => w.walletId === walletId);
  return { walletId, addresses: wallet.accounts.map((a) => a.address) };
}

async function account(walletId) {
  const wallets = await client.fetchWallets();
  return wallets.find((w) => w.walletId === walletId).accounts[0];
}

async function signMessage(walletId, message) {
  const walletAccount = await account(walletId);
  return plain(await client.signMessage({ walletAccount, message, addEthereumPrefix: true }));
}

async function signTransaction(walletId, unsignedTransaction) {
  const walletAccount = await account(walletId);
  return await client.signTransaction({
    walletAccount,
    unsignedTransaction,
    transactionType: "TRANSACTION_TYPE_ETHEREUM",
  });
}

async function exportWallet(walletId) {
  const target = generateP256KeyPair();
  const session = await client.getSession();
  const exportBundle = await client.exportWallet({
    walletId,
    targetPublicKey: target.publicKeyUncompressed,
  });
  return await decryptExportBundle({
    exportBundle,
    embeddedKey: target.privateKey,
    organizationId: session.organizationId,
    dangerouslyOverrideSignerPublicKey: emulator.signerPublicKey,
    returnMnemonic: true,
  });
}

async function initOtp(contact) {
  return plain(await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact }));
}

// The official verifyOtp, as an app calls it: it checks the target bundle against
// Turnkey's production key, with no override (the gap the README names).
async function verifyOtpAsShipped(otpId, otpCode, otpEncryptionTargetBundle) {
  try {
    await client.verifyOtp({ otpId, otpCode, otpEncryptionTargetBundle });
    return { ok: true };
  } catch (error) {
    const cause = error.cause ? String(error.cause.message || error.cause) : "";
    return { ok: false, message: String(error.message), cause };
  }
}

// The workaround: encrypt with the emulator's TLS fetcher key, then the rest of
// completeOtp (verify through the proxy, look the account up, sign up or log in).
async function completeOtp(otpId, otpCode, otpEncryptionTargetBundle, contact) {
  const publicKey = await client.createApiKeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle(
    otpCode,
    otpEncryptionTargetBundle,
    publicKey,
    emulator.tlsFetcherPublicKey,
  );
  const { verificationToken } = await client.httpClient.proxyVerifyOtpV2({
    otpId,
    encryptedOtpBundle,
  });
  const found = await client.httpClient.proxyGetAccount({
    filterType: "EMAIL",
    filterValue: contact,
    verificationToken,
  });
  let action;
  if (found.organizationId) {
    await client.loginWithOtp({ verificationToken, organizationId: found.organizationId });
    action = "LOGIN";
  } else {
    await client.signUpWithOtp({ verificationToken, contact, otpType: "OTP_TYPE_EMAIL" });
    action = "SIGNUP";
  }
  return { action, session: plain(await client.getSession()) };
}

async function createKeyPair() {
  return await client.createApiKeyPair();
}

// OAuth with an OIDC token of the emulator's test issuer, its nonce SHA-256 of publicKey.
async function completeOauth(oidcToken, publicKey) {
  const result = await client.completeOauth({ oidcToken, publicKey, providerName: "Test issuer" });
  return { action: result.action, session: plain(await client.getSession()) };
}

async function whoami() {
  const session = await client.getSession();
  return plain(await client.fetchUser({ organizationId: session.organizationId }));
}

window.tk = {
  start,
  signUpWithPasskey,
  logout,
  loginWithPasskey,
  createWallet,
  signMessage,
  signTransaction,
  exportWallet,
  initOtp,
  verifyOtpAsShipped,
  completeOtp,
  createKeyPair,
  completeOauth,
  whoami,
};
window.tkReady = true;
