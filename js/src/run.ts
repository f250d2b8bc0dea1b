/**
 * What the Vitest and Jest entry points share: one emulator for the run, started (or attached
 * to) by a global set-up that snapshots its world and hands everything to the workers through
 * environment variables; and, in each worker, that emulator again and the per-test restore.
 */
import { ENV, attachEmulator, startOrAttach, type Emulator, type StartOptions } from "./start.js";

/** What a global set-up hands to the workers. */
export interface RunHandle {
  emulator: Emulator;
  snapshotId: string;
  /** The variables set in `process.env` (workers inherit them). */
  env: Record<string, string>;
}

/** Start (or attach to) the run's emulator, snapshot its world, export it to the workers. */
export async function startForRun(options: StartOptions = {}): Promise<RunHandle> {
  const emulator = await startOrAttach(options);
  const snapshotId = await emulator.control.snapshot();
  const env: Record<string, string> = {
    [ENV.info]: JSON.stringify(emulator.info),
    [ENV.url]: emulator.baseUrl,
    [ENV.snapshotId]: snapshotId,
  };
  if (emulator.info.controlToken) env[ENV.controlToken] = emulator.info.controlToken;
  Object.assign(process.env, env);
  return { emulator, snapshotId, env };
}

/** Options of the per-test isolation. */
export interface IsolationOptions {
  /**
   * Also empty the observations snapshots leave alone, so that each test reads only its
   * own: the outbox, the call log, pending faults and webhook deliveries (default true).
   */
  clearObservations?: boolean;
}

let shared: Promise<Emulator> | undefined;

/** The run's emulator in this worker (attached from what the global set-up exported). */
export function emulator(): Promise<Emulator> {
  if (!process.env[ENV.info] && !process.env[ENV.url]) {
    return Promise.reject(
      new Error(
        "no emulator for this run: add the global set-up (turnkey-emulator/vitest/global-setup or " +
          "turnkey-emulator/jest/global-setup) to the runner's configuration, or set TURNKEY_EMULATOR_URL",
      ),
    );
  }
  shared ??= attachEmulator(process.env);
  return shared;
}

/** Put the world back as the global set-up found it (its snapshot). */
export async function restoreStartingWorld(options: IsolationOptions = {}): Promise<void> {
  const emu = await emulator();
  const snapshotId = process.env[ENV.snapshotId];
  if (!snapshotId) throw new Error(`${ENV.snapshotId} is not set: the global set-up takes it`);
  await emu.control.restore(snapshotId, { clearObservations: options.clearObservations ?? true });
}
