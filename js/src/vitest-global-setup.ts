/**
 * Vitest's global set-up: one emulator for the run (`globalSetup:
 * ["turnkey-emulator/vitest/global-setup"]`). Started by `startEmulator()` (or attached to,
 * when `TURNKEY_EMULATOR_URL` is set), its world snapshotted, and handed to the workers through
 * environment variables; stopped by the teardown Vitest calls at the end.
 */
import { startForRun } from "./run.js";
import type { StartOptions } from "./start.js";

/** Options from `TURNKEY_EMULATOR_OPTIONS` (JSON of `StartOptions`), for configuration files. */
function optionsFromEnv(): StartOptions {
  const text = process.env.TURNKEY_EMULATOR_OPTIONS;
  return text ? (JSON.parse(text) as StartOptions) : {};
}

export default async function setup(): Promise<() => Promise<void>> {
  const run = await startForRun(optionsFromEnv());
  return async () => {
    await run.emulator.stop();
  };
}
