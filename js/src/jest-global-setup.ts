/**
 * Jest's global set-up (`globalSetup: "turnkey-emulator/jest/global-setup"`): one emulator
 * for the run, its world snapshotted, handed to the workers through environment variables
 * (they start after it); `turnkey-emulator/jest/global-teardown` stops it.
 */
import { startForRun, type RunHandle } from "./run.js";
import type { StartOptions } from "./start.js";

export const HANDLE = Symbol.for("turnkey-emulator.jest.run");

export default async function globalSetup(): Promise<void> {
  const text = process.env.TURNKEY_EMULATOR_OPTIONS;
  const options = text ? (JSON.parse(text) as StartOptions) : {};
  (globalThis as Record<symbol, RunHandle>)[HANDLE] = await startForRun(options);
}
