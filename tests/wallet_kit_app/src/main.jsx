// A small app over the official @turnkey/react-wallet-kit: its provider, its auth modal, its
// sign and export screens; our own buttons only open them. tests/test_browser_wallet_kit.py
// drives it in headless Chromium against a served emulator and its Auth Proxy.
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { TurnkeyProvider, useTurnkey } from "@turnkey/react-wallet-kit";
import "@turnkey/react-wallet-kit/styles.css";

const emulator = window.TURNKEY_EMULATOR;

const config = {
  apiBaseUrl: emulator.apiBaseUrl,
  authProxyUrl: emulator.authProxyUrl,
  authProxyConfigId: emulator.authProxyConfigId,
  organizationId: emulator.organizationId,
  // our export frame, in place of https://export.turnkey.com (src/export-frame.js)
  exportIframeUrl: `${location.origin}/export-frame.html?signerPublicKey=${emulator.signerPublicKey}`,
  passkeyConfig: { rpId: location.hostname }, // WebAuthn takes no IP address
};

const errors = [];
const report = (error) => {
  errors.push(String(error?.message ?? error));
  document.getElementById("errors").textContent = errors.join("\n");
};

function App() {
  const turnkey = useTurnkey();
  const { authState, session, wallets } = turnkey;
  const [signature, setSignature] = useState(null);
  const wallet = wallets.find((w) => w.walletName === "main");
  const run = (step) => () => step().catch(report);
  return (
    <main>
      <p>auth state: <span id="auth-state">{authState}</span></p>
      <p>organization: <span id="session-organization">{session?.organizationId ?? ""}</span></p>
      <p>user: <span id="session-user">{session?.userId ?? ""}</span></p>
      <button id="login" onClick={run(() => turnkey.handleLogin())}>Log in</button>
      <button
        id="create-wallet"
        onClick={run(async () => {
          await turnkey.createWallet({ walletName: "main", accounts: ["ADDRESS_FORMAT_ETHEREUM"] });
          await turnkey.refreshWallets();
        })}
      >
        Create wallet
      </button>
      <p>
        wallet: <span id="wallet-id">{wallet?.walletId ?? ""}</span>{" "}
        <span id="wallet-address">{wallet?.accounts[0]?.address ?? ""}</span>
      </p>
      <button
        id="sign-message"
        onClick={run(async () => {
          const result = await turnkey.handleSignMessage({
            message: "hello from the wallet kit",
            walletAccount: wallet.accounts[0],
            addEthereumPrefix: true,
            successPageDuration: 0,
          });
          setSignature(result);
        })}
      >
        Sign message
      </button>
      <pre id="signature">{signature ? JSON.stringify(signature) : ""}</pre>
      <button id="export-wallet" onClick={run(() => turnkey.handleExportWallet({ walletId: wallet.walletId }))}>
        Export wallet
      </button>
      <button id="logout" onClick={run(() => turnkey.logout())}>Log out</button>
      <pre id="errors"></pre>
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <TurnkeyProvider config={config} callbacks={{ onError: report }}>
      <App />
    </TurnkeyProvider>
  </StrictMode>,
);
