import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    vitest: "src/vitest.ts",
    "vitest-global-setup": "src/vitest-global-setup.ts",
    jest: "src/jest.ts",
    "jest-global-setup": "src/jest-global-setup.ts",
    "jest-global-teardown": "src/jest-global-teardown.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  shims: true, // import.meta.url in the CommonJS build
  clean: true,
  target: "node18",
  external: ["vitest", "@turnkey/sdk-server"],
});
