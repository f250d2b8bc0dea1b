// Built by tests/wallet_kit_app.py (vite build), served from http://localhost:<port>.
import { resolve } from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// @turnkey/core's verifyOtp (and so the kit's OTP screen, through completeOtp) encrypts the
// code with @turnkey/crypto's encryptOtpCodeToBundle, which checks the target bundle against
// Turnkey's production TLS fetcher key and is given no override. This plugin makes that
// constant read the emulator's key from the page (window.TURNKEY_EMULATOR.tlsFetcherPublicKey,
// set before the bundle runs) and keeps the production key otherwise: a test build's override,
// never one for production (docs/typescript.md).
function emulatorTlsFetcherKey() {
  const constant = /const PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY = ("04[0-9a-f]{128}");/;
  return {
    name: "turnkey-emulator-tls-fetcher-key",
    enforce: "pre",
    transform(code, id) {
      if (!/@turnkey[\\/]crypto[\\/]dist[\\/]constants\.m?js$/.test(id)) return null;
      if (!constant.test(code)) this.error("@turnkey/crypto has no PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY to override");
      return code.replace(
        constant,
        "const PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY = globalThis.TURNKEY_EMULATOR?.tlsFetcherPublicKey ?? $1;",
      );
    },
  };
}

export default defineConfig({
  plugins: [react(), emulatorTlsFetcherKey()],
  logLevel: "error",
  build: {
    target: "chrome110",
    sourcemap: false,
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, "index.html"),
        exportFrame: resolve(import.meta.dirname, "export-frame.html"),
      },
    },
  },
});
