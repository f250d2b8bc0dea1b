// Mirrors tkhq/sdk examples/access-control/with-delegated/server-side: `setup` is src/index.ts
// (a sub-organization with a Delegated user holding DELEGATED_API_PUBLIC_KEY and an End User,
// a wallet; the delegated user creates a policy letting itself sign transactions to
// RECIPIENT_ADDRESS, then leaves the root quorum to the end user); `validate` is
// src/validate.ts (as the delegated user: a transaction to RECIPIENT_ADDRESS is signed, one to
// DENIED_ADDRESS and a raw payload are refused). The example hard-codes
// https://api.turnkey.com (its .env's TURNKEY_BASE_URL is unused); this mirror uses
// TURNKEY_BASE_URL. validate.ts leaves its two unsigned transactions as placeholders; this
// mirror serializes an EIP-1559 transfer to each address with viem.
import { Turnkey } from "@turnkey/sdk-server";
import { hashMessage, parseGwei, serializeTransaction } from "viem";
import { loadEnv, run } from "./util.mjs";

loadEnv();

function api(privateKey, publicKey, organizationId) {
  return new Turnkey({
    apiBaseUrl: process.env.TURNKEY_BASE_URL,
    apiPrivateKey: privateKey,
    apiPublicKey: publicKey,
    defaultOrganizationId: organizationId,
  }).apiClient();
}

async function setup() {
  const parent = api(
    process.env.TURNKEY_API_PRIVATE_KEY,
    process.env.TURNKEY_API_PUBLIC_KEY,
    process.env.TURNKEY_ORGANIZATION_ID,
  );
  const subOrg = await parent.createSubOrganization({
    organizationId: process.env.TURNKEY_ORGANIZATION_ID,
    subOrganizationName: `Sub Org - With Delegated`,
    rootUsers: [
      {
        userName: "Delegated User",
        apiKeys: [
          {
            apiKeyName: "Delegated - API Key",
            publicKey: process.env.DELEGATED_API_PUBLIC_KEY,
            curveType: "API_KEY_CURVE_P256",
          },
        ],
        authenticators: [],
        oauthProviders: [],
      },
      {
        userName: "End User",
        userEmail: "enduser@example.com",
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
      },
    ],
    rootQuorumThreshold: 1,
    wallet: {
      walletName: "Default ETH Wallet",
      accounts: [
        {
          curve: "CURVE_SECP256K1",
          pathFormat: "PATH_FORMAT_BIP32",
          path: "m/44'/60'/0'/0/0",
          addressFormat: "ADDRESS_FORMAT_ETHEREUM",
        },
      ],
    },
  });
  console.log("Sub-organization id:", subOrg.subOrganizationId);
  console.log("Wallet id:", subOrg.wallet?.walletId);
  console.log("Wallet account address:", subOrg.wallet?.addresses?.[0]);

  const delegated = api(
    process.env.DELEGATED_API_PRIVATE_KEY,
    process.env.DELEGATED_API_PUBLIC_KEY,
    subOrg.subOrganizationId,
  );
  const policyName = "Allow Delegated Account to sign transactions to specific address";
  const effect = "EFFECT_ALLOW";
  const consensus = `approvers.any(user, user.id == '${subOrg.rootUserIds?.[0]}')`;
  const condition = `eth.tx.to == '${process.env.RECIPIENT_ADDRESS}'`;
  const { policyId } = await delegated.createPolicy({
    policyName,
    condition,
    consensus,
    effect,
    notes: "",
  });
  console.log(
    [
      `New policy created!`,
      `- Name: ${policyName}`,
      `- Policy ID: ${policyId}`,
      `- Effect: ${effect}`,
      `- Consensus: ${consensus}`,
      `- Condition: ${condition}`,
      ``,
    ].join("\n"),
  );
  const quorum = await delegated.updateRootQuorum({
    threshold: 1,
    userIds: [subOrg.rootUserIds?.[1]],
  });
  console.log("Root Quorum updated! :", quorum);
}

function unsignedTransfer(to) {
  return serializeTransaction({
    type: "eip1559",
    chainId: 11155111,
    nonce: 0,
    to,
    value: 1000n,
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

async function validate() {
  const delegated = api(
    process.env.DELEGATED_API_PRIVATE_KEY,
    process.env.DELEGATED_API_PUBLIC_KEY,
    process.env.DELEGATED_SUBORG_ID,
  );
  async function signTx(rawTx, label) {
    console.log(`\n=== ${label} ===`);
    try {
      const { signedTransaction } = await delegated.signTransaction({
        signWith: process.env.SIGN_WITH,
        type: "TRANSACTION_TYPE_ETHEREUM",
        unsignedTransaction: rawTx,
      });
      console.log("✅ Successfully signed transaction:");
      console.log(signedTransaction);
    } catch (err) {
      console.error("❌ Failed to sign transaction:");
      console.log(err.message);
    }
    console.log("=".repeat(40));
  }
  await signTx(unsignedTransfer(process.env.RECIPIENT_ADDRESS), "Policy Tx Allow");
  await signTx(unsignedTransfer(process.env.DENIED_ADDRESS), "Policy Tx Deny");
  try {
    const { r, s, v } = await delegated.signRawPayload({
      signWith: process.env.SIGN_WITH,
      payload: hashMessage("test message to be signed"),
      hashFunction: "HASH_FUNCTION_KECCAK256",
      encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
    });
    console.log(`\n=== Trying signRawPayload ===`);
    console.log("Sign raw payload response:", { r, s, v });
  } catch (err) {
    console.error("❌ Failed to sign raw message:");
    console.log(err.message);
  }
}

run(process.argv[2] === "validate" ? validate : setup);
