// Runs @turnkey/core's HTTP client (TurnkeySDKClientBase, what `turnkeyClient.httpClient` is)
// in node, stamped by the API-key stamper @turnkey/core re-exports, on a batch of calls for
// tests/test_core_swap_earn.py.
// Input (argv[2]): a JSON file {"config": {apiBaseUrl, organizationId, apiPublicKey,
// apiPrivateKey}, "calls": [{"method": ..., "input": {...}}]}. A call's method is one of the
// client's own methods, or "signed:<stampMethod>": the client's stamp method, then its
// sendSignedRequest (core's way for activities it has no plain method for).
// Output: a JSON list of {"ok": result} or {"error": message}, one per call, in order.
import fs from "node:fs";
import { ApiKeyStamper } from "@turnkey/core";
import { TurnkeySDKClientBase } from "@turnkey/core/dist/__generated__/sdk-client-base.mjs";

const { config, calls } = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const client = new TurnkeySDKClientBase({
  apiBaseUrl: config.apiBaseUrl,
  organizationId: config.organizationId,
  apiKeyStamper: new ApiKeyStamper({
    apiPublicKey: config.apiPublicKey,
    apiPrivateKey: config.apiPrivateKey,
  }),
  activityPoller: { intervalMs: 50, numRetries: 5 },
});

const results = [];
for (const { method, input, resultKey } of calls) {
  try {
    if (method.startsWith("signed:")) {
      const signed = await client[method.slice("signed:".length)](input);
      results.push({ ok: await client.sendSignedRequest(signed, { resultKey }) });
    } else {
      results.push({ ok: await client[method](input) });
    }
  } catch (error) {
    results.push({ error: String(error && error.message ? error.message : error) });
  }
}
process.stdout.write(JSON.stringify(results));
