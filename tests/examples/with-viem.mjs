// Mirrors tkhq/sdk examples/chain-integrations/with-viem: src/createNewWallet.ts (without
// SIGN_WITH: one Ethereum account at m/44'/60'/0'/0/0, printed) and src/index.ts step 1
// (a viem wallet client over a Turnkey account signs the prompted message; the recovered
// address must be the account's). Step 2, sending to Sepolia through Infura, needs a public
// RPC node and is not mirrored. createNewWallet.ts hard-codes https://api.turnkey.com;
// this mirror uses BASE_URL, as index.ts does.
import { randomBytes } from "node:crypto";
import prompts from "prompts";
import { createWalletClient, http, recoverMessageAddress } from "viem";
import { sepolia } from "viem/chains";
import { createAccount } from "@turnkey/viem";
import { Turnkey } from "@turnkey/sdk-server";
import { assertEqual, loadEnv, print, required, run } from "./util.mjs";

loadEnv();

function client() {
  return new Turnkey({
    apiBaseUrl: process.env.BASE_URL,
    apiPrivateKey: process.env.API_PRIVATE_KEY,
    apiPublicKey: process.env.API_PUBLIC_KEY,
    defaultOrganizationId: process.env.ORGANIZATION_ID,
  });
}

async function createNewWallet() {
  console.log("creating a new wallet on Turnkey...\n");
  const walletName = `ETH Wallet ${randomBytes(2).toString("hex")}`;
  const { walletId, addresses } = await client()
    .apiClient()
    .createWallet({
      walletName,
      accounts: [
        {
          curve: "CURVE_SECP256K1",
          pathFormat: "PATH_FORMAT_BIP32",
          path: "m/44'/60'/0'/0/0",
          addressFormat: "ADDRESS_FORMAT_ETHEREUM",
        },
      ],
    });
  console.log(
    [
      `New Ethereum wallet created!`,
      `- Name: ${walletName}`,
      `- Wallet ID: ${required(walletId, "walletId")}`,
      `- Address: ${required(addresses[0], "address")}`,
      ``,
      "Now you can take the address, put it in `.env.local` (`SIGN_WITH=<address>`), then re-run the script.",
    ].join("\n"),
  );
}

async function main() {
  if (!process.env.SIGN_WITH) {
    await createNewWallet();
    return;
  }
  const account = await createAccount({
    client: client().apiClient(),
    organizationId: process.env.ORGANIZATION_ID,
    signWith: process.env.SIGN_WITH,
  });
  const wallet = createWalletClient({
    account,
    chain: sepolia,
    transport: http("http://127.0.0.1:9/no-rpc-needed-to-sign"),
  });
  const { message } = await prompts([
    { type: "text", name: "message", message: "Message to sign", initial: "Hello Turnkey" },
  ]);
  const signature = await wallet.signMessage({ message });
  const recovered = await recoverMessageAddress({ message, signature });
  print("Turnkey-powered signature:", `${signature}`);
  print("Recovered address:", `${recovered}`);
  assertEqual(wallet.account.address, recovered);
}

run(main);
