/**
 * `turnkey-emulator/vitest`: the run's emulator in a test file, and the per-test restore.
 * Configure `globalSetup: ["turnkey-emulator/vitest/global-setup"]` in `vitest.config`.
 */
import { beforeEach } from "vitest";
import { restoreStartingWorld, type IsolationOptions } from "./run.js";

export { emulator, restoreStartingWorld, type IsolationOptions } from "./run.js";
export { default as globalSetup } from "./vitest-global-setup.js";

/** Before each test of this file (or of every file, from a `setupFiles` module): the world as at the start. */
export function isolateEachTest(options: IsolationOptions = {}): void {
  beforeEach(async () => {
    await restoreStartingWorld(options);
  });
}

export type { Emulator } from "./start.js";
