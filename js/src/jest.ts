/**
 * `turnkey-emulator/jest`: the run's emulator in a test file, and the per-test restore.
 * Configure `globalSetup: "turnkey-emulator/jest/global-setup"` and `globalTeardown:
 * "turnkey-emulator/jest/global-teardown"`.
 */
import { restoreStartingWorld, type IsolationOptions } from "./run.js";

export { emulator, restoreStartingWorld, type IsolationOptions } from "./run.js";
export { default as globalSetup } from "./jest-global-setup.js";
export { default as globalTeardown } from "./jest-global-teardown.js";
export type { Emulator } from "./start.js";

type Hook = (fn: () => Promise<void>) => void;

/** Before each test of this file (or of every file, from a `setupFilesAfterEnv` module): the world as at the start. */
export function isolateEachTest(options: IsolationOptions = {}): void {
  const beforeEachHook = (globalThis as { beforeEach?: Hook }).beforeEach;
  if (!beforeEachHook) throw new Error("isolateEachTest() is called from a Jest test file");
  beforeEachHook(async () => {
    await restoreStartingWorld(options);
  });
}
