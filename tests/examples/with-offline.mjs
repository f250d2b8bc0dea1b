// Mirrors tkhq/sdk examples/advanced/with-offline (src/index.ts): stamp a
// CREATE_PRIVATE_KEYS_V2 request for the prompted key name without sending it
// (@turnkey/http's stampCreatePrivateKeys with an ApiKeyStamper) and print its URL, stamp
// header, body and a curl command that sends it later.
import prompts from "prompts";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { loadEnv, run } from "./util.mjs";

loadEnv();

async function main() {
  for (const name of ["ORGANIZATION_ID", "API_PUBLIC_KEY", "API_PRIVATE_KEY"]) {
    if (!process.env[name]) {
      console.error(`${name} is not set. Please create .env.local and populate it.`);
      return;
    }
  }
  console.log("Configuration loaded!");
  const client = new TurnkeyClient(
    { baseUrl: process.env.BASE_URL },
    new ApiKeyStamper({
      apiPublicKey: process.env.API_PUBLIC_KEY,
      apiPrivateKey: process.env.API_PRIVATE_KEY,
    }),
  );
  const organizationId = process.env.ORGANIZATION_ID;
  console.log(`Creating a new Private Key for organization ${organizationId} using the configured Turnkey API key...`);
  const { privateKeyName } = await prompts([
    { type: "text", name: "privateKeyName", message: "New Private Key Name:" },
  ]);
  const signed = await client.stampCreatePrivateKeys({
    timestampMs: String(Date.now()),
    type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
    organizationId,
    parameters: {
      privateKeys: [
        {
          privateKeyName,
          curve: "CURVE_SECP256K1",
          addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
          privateKeyTags: [],
        },
      ],
    },
  });
  const { stampHeaderName, stampHeaderValue } = signed.stamp;
  console.log("Your signed request details:");
  console.log("✅ Request URL:");
  console.log(`\t${signed.url}`);
  console.log("✅ Stamp header name and value");
  console.log(`\t${stampHeaderName}: ${stampHeaderValue}`);
  console.log("✅ POST body:");
  console.log(`\t${signed.body}`);
  console.log("\nFor example, you can send this request to Turnkey by running the following cURL command:");
  console.log(`\tcurl -X POST -d'${signed.body}' -H'${stampHeaderName}:${stampHeaderValue}' -v '${signed.url}'`);
}

run(main);
