/**
 * turnkey-emulator: start the Turnkey emulator (`python -m emulator serve`) from Node, drive
 * its control plane, and hand `@turnkey/sdk-server` a client of it.
 */
export {
  ENV,
  EmulatorStartError,
  INSTALL_HINT,
  attachEmulator,
  emulatorOf,
  startEmulator,
  startOrAttach,
  type Emulator,
  type StartOptions,
} from "./start.js";
export { ControlError, EmulatorControl, type NextMessageOptions, type WaitOptions } from "./control.js";
export type * from "./types.js";
