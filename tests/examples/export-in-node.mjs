// Mirrors tkhq/sdk examples/key-management/export-in-node (src/index.ts): prompt for the
// export type ("wallet", "key" or "account") and its id or address, export it to a fresh
// P-256 target key, decrypt the bundle with @turnkey/crypto and print it. The one
// difference: the bundle is signed by the emulator's enclave, not Turnkey's production
// signer, so decryptExportBundle is given SIGNER_PUBLIC_KEY (serve's `signerPublicKey`) as
// its dangerouslyOverrideSignerPublicKey; the example passes none.
import prompts from "prompts";
import { Turnkey } from "@turnkey/sdk-server";
import { decryptExportBundle, generateP256KeyPair } from "@turnkey/crypto";
import { loadEnv, run } from "./util.mjs";

loadEnv();

async function ask(name, message) {
  return (await prompts([{ type: "text", name, message }]))[name];
}

async function main() {
  const keyPair = generateP256KeyPair();
  const organizationId = process.env.ORGANIZATION_ID;
  const api = new Turnkey({
    apiBaseUrl: process.env.BASE_URL,
    apiPublicKey: process.env.API_PUBLIC_KEY,
    apiPrivateKey: process.env.API_PRIVATE_KEY,
    defaultOrganizationId: organizationId,
  }).apiClient();
  const targetPublicKey = keyPair.publicKeyUncompressed;
  const exportType = await ask("exportType", `Enter Export Type, either "wallet" or "key" or "account"`);
  let exported;
  if (exportType == "wallet") {
    const walletId = await ask("walletId", "Enter wallet id to export");
    exported = await api.exportWallet({ walletId, targetPublicKey });
  } else if (exportType == "key") {
    const privateKeyId = await ask("privateKeyId", "Enter private key id to export");
    exported = await api.exportPrivateKey({ privateKeyId, targetPublicKey });
  } else if (exportType == "account") {
    const address = await ask("address", "Enter address to export");
    exported = await api.exportWalletAccount({ address, targetPublicKey });
  } else {
    throw new Error(`Invalid export type. Enter "wallet" or "key" or "account"`);
  }
  const decrypted = await decryptExportBundle({
    exportBundle: exported.exportBundle,
    embeddedKey: keyPair.privateKey,
    organizationId,
    returnMnemonic: exportType == "wallet",
    dangerouslyOverrideSignerPublicKey: process.env.SIGNER_PUBLIC_KEY,
  });
  console.log(decrypted);
}

run(main);
