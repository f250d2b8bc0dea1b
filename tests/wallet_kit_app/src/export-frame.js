// Our stand-in for Turnkey's export frame (https://export.turnkey.com, tkhq/frames), which
// @turnkey/react-wallet-kit's export screen embeds through @turnkey/iframe-stamper: the same
// message protocol (TURNKEY_INIT_MESSAGE_CHANNEL, PUBLIC_KEY_READY, APPLY_SETTINGS,
// INJECT_WALLET_EXPORT_BUNDLE / INJECT_KEY_EXPORT_BUNDLE → BUNDLE_INJECTED, ERROR), the bundle
// decrypted here, in the page, with @turnkey/crypto under the emulator's signer key (from
// ?signerPublicKey=, where the real frame has Turnkey's production key built in).
import { decryptExportBundle, generateP256KeyPair } from "@turnkey/crypto";

const signerPublicKey = new URLSearchParams(location.search).get("signerPublicKey");
const key = generateP256KeyPair();
let port;

function answer(type, value, requestId) {
  port.postMessage({ type, value, requestId });
}

async function handle({ type, requestId, value, organizationId, keyFormat }) {
  try {
    switch (type) {
      case "APPLY_SETTINGS": {
        const { styles } = JSON.parse(value);
        Object.assign(document.getElementById("mnemonic").style, styles ?? {});
        return answer("SETTINGS_APPLIED", true, requestId);
      }
      case "GET_EMBEDDED_PUBLIC_KEY":
      case "INIT_EMBEDDED_KEY":
        return answer(type === "INIT_EMBEDDED_KEY" ? "PUBLIC_KEY_CREATED" : "EMBEDDED_PUBLIC_KEY", key.publicKeyUncompressed, requestId);
      case "INJECT_WALLET_EXPORT_BUNDLE":
      case "INJECT_KEY_EXPORT_BUNDLE": {
        const secret = await decryptExportBundle({
          exportBundle: value,
          embeddedKey: key.privateKey,
          organizationId,
          returnMnemonic: type === "INJECT_WALLET_EXPORT_BUNDLE",
          keyFormat,
          dangerouslyOverrideSignerPublicKey: signerPublicKey,
        });
        document.getElementById("mnemonic").textContent = secret;
        return answer("BUNDLE_INJECTED", true, requestId);
      }
      default:
        return answer("ERROR", `this frame does not do ${type}`, requestId);
    }
  } catch (error) {
    answer("ERROR", String(error?.message ?? error), requestId);
  }
}

window.addEventListener("message", (event) => {
  if (event.data?.type !== "TURNKEY_INIT_MESSAGE_CHANNEL" || !event.ports[0]) return;
  port = event.ports[0];
  port.onmessage = (message) => handle(message.data ?? {});
  port.postMessage({ type: "PUBLIC_KEY_READY", value: key.publicKeyUncompressed });
});
