/** Jest's global teardown (`globalTeardown: "turnkey-emulator/jest/global-teardown"`). */
import type { RunHandle } from "./run.js";

const HANDLE = Symbol.for("turnkey-emulator.jest.run");

export default async function globalTeardown(): Promise<void> {
  const run = (globalThis as Record<symbol, RunHandle | undefined>)[HANDLE];
  await run?.emulator.stop();
}
