// The kit's own Vitest run (tests/test_nodekit.py): one emulator for the run, files one after
// the other (they share it, and each test restores the world the run started with).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["test/vitest/**/*.test.ts"],
    globalSetup: ["turnkey-emulator/vitest/global-setup"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
