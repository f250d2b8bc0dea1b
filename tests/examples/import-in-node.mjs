// Mirrors tkhq/sdk examples/key-management/import-in-node (src/index.ts): prompt for the
// import type ("wallet" or "key"), start the import for USER_ID, encrypt the prompted
// mnemonic (or private key in HEXADECIMAL or SOLANA format) to the import bundle with
// @turnkey/crypto, import it and print its id. The one difference: the import bundle is
// signed by the emulator's enclave, so the encrypt call is given SIGNER_PUBLIC_KEY (serve's
// `signerPublicKey`) as its dangerouslyOverrideSignerPublicKey; the example passes none.
import prompts from "prompts";
import { Turnkey } from "@turnkey/sdk-server";
import { encryptPrivateKeyToBundle, encryptWalletToBundle } from "@turnkey/crypto";
import { loadEnv, run } from "./util.mjs";

loadEnv();

async function ask(name, message) {
  return (await prompts([{ type: "text", name, message }]))[name];
}

async function main() {
  const organizationId = process.env.ORGANIZATION_ID;
  const userId = process.env.USER_ID;
  const signer = process.env.SIGNER_PUBLIC_KEY;
  const api = new Turnkey({
    apiBaseUrl: process.env.BASE_URL,
    apiPublicKey: process.env.API_PUBLIC_KEY,
    apiPrivateKey: process.env.API_PRIVATE_KEY,
    defaultOrganizationId: organizationId,
  }).apiClient();
  const importType = await ask("importType", `Enter Import Type, either "wallet" or "key"`);
  let init;
  if (importType == "wallet") {
    init = await api.initImportWallet({ userId });
  } else if (importType == "key") {
    init = await api.initImportPrivateKey({ userId });
  } else {
    throw new Error(`Invalid import type. Please enter "wallet" or "key"`);
  }
  if (importType == "wallet") {
    const mnemonic = await ask("mnemonic", "Enter mnemonic seed phrase for wallet to import");
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic,
      importBundle: init.importBundle,
      userId,
      organizationId,
      dangerouslyOverrideSignerPublicKey: signer,
    });
    const done = await api.importWallet({
      userId,
      walletName: `example-import-wallet-node-${Date.now()}`,
      encryptedBundle,
      accounts: [],
    });
    console.log(`Successfully imported wallet with id: ${done.walletId}`);
  } else {
    const privateKey = await ask("privateKey", "Enter Private Key to import");
    const keyFormat = await ask("keyFormat", "Enter Key Format, either HEXADECIMAL or SOLANA");
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey,
      keyFormat,
      importBundle: init.importBundle,
      userId,
      organizationId,
      dangerouslyOverrideSignerPublicKey: signer,
    });
    const solana = keyFormat == "SOLANA";
    const done = await api.importPrivateKey({
      userId,
      privateKeyName: `example-import-private-key-node-${Date.now()}`,
      encryptedBundle,
      curve: solana ? "CURVE_ED25519" : "CURVE_SECP256K1",
      addressFormats: solana ? ["ADDRESS_FORMAT_SOLANA"] : ["ADDRESS_FORMAT_ETHEREUM"],
    });
    console.log(`Successfully imported private key with id: ${done.privateKeyId}`);
  }
}

run(main);
