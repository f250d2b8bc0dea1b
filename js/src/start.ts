/**
 * `startEmulator()`: spawn `python -m emulator serve --port 0`, read its first line, and hand
 * back what a test needs; `attachEmulator()`: the same object for a server already running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { EmulatorControl } from "./control.js";
import type { KeyOverrides, ServeInfo, TurnkeyServerConfig } from "./types.js";

/** How `python -m emulator serve` is started. */
export interface StartOptions {
  /** The interpreter (default: `TURNKEY_EMULATOR_PYTHON`, else `python3`, else `python` on PATH). */
  python?: string;
  /** Same ids and keys on every run (`--seed`). */
  seed?: number;
  /** Serve an Auth Proxy configuration: `true` (every sign-in method on) or its settings. */
  authProxy?: boolean | Record<string, unknown>;
  /** Require this bearer token on the control plane (`--control-token`). */
  controlToken?: string;
  /** More `serve` options, e.g. `["--rate-limits", "pro"]`. */
  args?: string[];
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long the first line may take (default 60 000 ms). */
  startTimeoutMs?: number;
}

/** A running emulator: its address, root credentials, keys, clients and `stop()`. */
export interface Emulator {
  /** The whole first line of `serve` (emulator/cli.py). */
  readonly info: ServeInfo;
  readonly baseUrl: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly apiPublicKey: string;
  readonly apiPrivateKey: string;
  /** `{ apiBaseUrl, apiPublicKey, apiPrivateKey, defaultOrganizationId }` for `new Turnkey(...)`. */
  readonly turnkeyConfig: TurnkeyServerConfig;
  /** The enclave keys, named as the official SDKs' overrides want them. */
  readonly overrides: KeyOverrides;
  /** `<baseUrl>/authproxy` and the configuration id, when one is served. */
  readonly authProxyUrl: string | null;
  readonly authProxyConfigId: string | null;
  readonly control: EmulatorControl;
  /**
   * A `Turnkey` client of `@turnkey/sdk-server` for the root user (`.apiClient()` for the
   * API). Throws, naming the install command, when that optional peer is not installed.
   */
  readonly turnkey: import("@turnkey/sdk-server").Turnkey;
  /** Whether this process started the server (`stop()` then ends it) or attached to one. */
  readonly owned: boolean;
  /** The server's process id, when this process started it. */
  readonly pid: number | undefined;
  /** End the server this process started (SIGTERM, then SIGKILL after 15 s); attached: nothing. */
  stop(): Promise<void>;
}

/** The emulator's Python package is missing, or the interpreter could not be run. */
export class EmulatorStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmulatorStartError";
  }
}

export const INSTALL_HINT =
  "install it into that interpreter's environment: python -m pip install turnkey-emulator " +
  "(or python -m pip install /path/to/turnkey-emulator from a checkout), or point " +
  "TURNKEY_EMULATOR_PYTHON at a Python that has it";

const DEFAULT_START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 15_000; // serve's own --graceful-timeout is 10 s
const owned = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOwnedOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of owned) child.kill("SIGKILL"); // never leave a server behind
  });
}

function pythonCandidates(options: StartOptions): string[] {
  const chosen = options.python ?? process.env.TURNKEY_EMULATOR_PYTHON;
  return chosen ? [chosen] : ["python3", "python"];
}

function serveArgs(options: StartOptions): string[] {
  const args = ["-m", "emulator", "serve", "--port", "0"];
  if (options.seed !== undefined) args.push("--seed", String(options.seed));
  if (options.authProxy === true) args.push("--auth-proxy");
  else if (options.authProxy) args.push("--auth-proxy-config", JSON.stringify(options.authProxy));
  if (options.controlToken) args.push("--control-token", options.controlToken);
  return [...args, ...(options.args ?? [])];
}

/** Start `python -m emulator serve --port 0` and wait for its first line. */
export async function startEmulator(options: StartOptions = {}): Promise<Emulator> {
  const candidates = pythonCandidates(options);
  let lastError: unknown;
  for (const python of candidates) {
    try {
      return await startWith(python, options);
    } catch (error) {
      lastError = error;
      const notFound = (error as { notFound?: boolean }).notFound;
      if (!notFound) throw error;
    }
  }
  throw new EmulatorStartError(
    `no Python interpreter found (tried ${candidates.join(", ")}): set TURNKEY_EMULATOR_PYTHON ` +
      `to one with the emulator installed (${String((lastError as Error)?.message ?? lastError)})`,
  );
}

function startWith(python: string, options: StartOptions): Promise<Emulator> {
  const child = spawn(python, serveArgs(options), {
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  return new Promise<Emulator>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error & { notFound?: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const timer = setTimeout(
      () => fail(new EmulatorStartError(`${python} -m emulator serve printed nothing in ${timeoutMs} ms: ${stderr.trim()}`)),
      timeoutMs,
    );
    child.once("error", (error: NodeJS.ErrnoException) => {
      const failure: Error & { notFound?: boolean } = new EmulatorStartError(
        `cannot run ${python}: ${error.message}`,
      );
      failure.notFound = error.code === "ENOENT";
      fail(failure);
    });
    child.once("exit", (code, signal) => {
      owned.delete(child);
      if (/No module named '?emulator'?/.test(stderr)) {
        fail(new EmulatorStartError(`the Python package of the emulator is not installed for ${python}: ${INSTALL_HINT}`));
      } else {
        fail(new EmulatorStartError(`${python} -m emulator serve exited (${code ?? signal}) before its first line: ${stderr.trim()}`));
      }
    });
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => {
      if (settled) return;
      let info: ServeInfo;
      try {
        info = JSON.parse(line) as ServeInfo;
      } catch {
        fail(new EmulatorStartError(`the first line of ${python} -m emulator serve is not JSON: ${line.slice(0, 200)}`));
        return;
      }
      settled = true;
      clearTimeout(timer);
      lines.on("line", () => {}); // keep reading, so that the pipe never fills
      owned.add(child);
      killOwnedOnExit();
      resolve(emulatorOf(info, child));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    child.once("exit", () => {
      clearTimeout(force);
      owned.delete(child);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** The `Emulator` of a first line; `child` when this process owns the server. */
export function emulatorOf(info: ServeInfo, child?: ChildProcess): Emulator {
  const control = new EmulatorControl(info.baseUrl, info.controlToken);
  const turnkeyConfig: TurnkeyServerConfig = {
    apiBaseUrl: info.baseUrl,
    apiPublicKey: info.apiPublicKey,
    apiPrivateKey: info.apiPrivateKey,
    defaultOrganizationId: info.organizationId,
  };
  let turnkey: unknown;
  return {
    info,
    baseUrl: info.baseUrl,
    organizationId: info.organizationId,
    userId: info.userId,
    apiPublicKey: info.apiPublicKey,
    apiPrivateKey: info.apiPrivateKey,
    turnkeyConfig,
    overrides: {
      dangerouslyOverrideSignerPublicKey: info.signerPublicKey,
      dangerouslyOverrideNotarizerPublicKey: info.notarizerPublicKey,
      dangerouslyOverrideTlsFetcherPublicKey: info.tlsFetcherEncryptPublicKey,
    },
    authProxyUrl: info.authProxyUrl,
    authProxyConfigId: info.authProxyConfigId,
    control,
    get turnkey() {
      if (!turnkeyConfig.apiPrivateKey) {
        throw new EmulatorStartError(
          `emulator.turnkey needs the root API private key: set ${ENV.apiPrivateKey} when attaching by URL`,
        );
      }
      turnkey ??= new (loadSdkServer().Turnkey)(turnkeyConfig);
      return turnkey as import("@turnkey/sdk-server").Turnkey;
    },
    owned: child !== undefined,
    pid: child?.pid,
    stop: () => (child ? stopChild(child) : Promise.resolve()),
  };
}

function loadSdkServer(): typeof import("@turnkey/sdk-server") {
  // The optional peer, resolved from the application (the working directory) first.
  const from = [`${process.cwd()}/package.json`, import.meta.url];
  for (const base of from) {
    try {
      return createRequire(base)("@turnkey/sdk-server");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    }
  }
  throw new EmulatorStartError(
    "emulator.turnkey needs the optional peer dependency @turnkey/sdk-server: npm install --save-dev @turnkey/sdk-server",
  );
}

/** Environment variables of a running emulator (what `attachEmulator` reads). */
export const ENV = {
  /** The whole first line of `serve`, JSON (what the global set-ups hand to workers). */
  info: "TURNKEY_EMULATOR_INFO",
  url: "TURNKEY_EMULATOR_URL",
  controlToken: "TURNKEY_EMULATOR_CONTROL_TOKEN",
  apiPublicKey: "TURNKEY_EMULATOR_API_PUBLIC_KEY",
  apiPrivateKey: "TURNKEY_EMULATOR_API_PRIVATE_KEY",
  /** The snapshot the per-test helpers restore (taken by the global set-ups). */
  snapshotId: "TURNKEY_EMULATOR_SNAPSHOT_ID",
} as const;

/**
 * Attach to a running emulator: from `TURNKEY_EMULATOR_INFO` (a first line), or from
 * `TURNKEY_EMULATOR_URL` (+ `TURNKEY_EMULATOR_CONTROL_TOKEN`), the public ids and keys read
 * from its control plane and the root private key from `TURNKEY_EMULATOR_API_PRIVATE_KEY`
 * (the one given to `serve --api-private-key`; the control plane never answers it). The
 * Auth Proxy is the server's first configuration, if it has one.
 */
export async function attachEmulator(env: NodeJS.ProcessEnv = process.env): Promise<Emulator> {
  const whole = env[ENV.info];
  if (whole) return emulatorOf(JSON.parse(whole) as ServeInfo);
  const url = env[ENV.url];
  if (!url) {
    throw new EmulatorStartError(`set ${ENV.url} (and ${ENV.controlToken}) to attach to a running emulator`);
  }
  const token = env[ENV.controlToken] ?? null;
  const control = new EmulatorControl(url, token);
  const publicInfo = await control.info();
  const apiPublicKey = env[ENV.apiPublicKey] ?? publicInfo.apiPublicKey ?? "";
  const baseUrl = control.baseUrl;
  const [proxy] = await control.authProxy.list();
  return emulatorOf({
    baseUrl,
    organizationId: publicInfo.organizationId ?? "",
    organizationName: publicInfo.organizationName ?? "",
    userId: publicInfo.userId ?? "",
    apiKeyId: publicInfo.apiKeyId ?? "",
    apiPublicKey,
    apiPrivateKey: env[ENV.apiPrivateKey] ?? "",
    signerPublicKey: publicInfo.signerPublicKey,
    notarizerPublicKey: publicInfo.notarizerPublicKey,
    tlsFetcherPublicKey: publicInfo.tlsFetcherPublicKey,
    tlsFetcherEncryptPublicKey: publicInfo.tlsFetcherEncryptPublicKey,
    controlToken: token,
    dashboardUrl: `${baseUrl}/emulator/ui/`,
    authProxyUrl: proxy ? `${baseUrl}/authproxy` : null,
    authProxyConfigId: proxy?.configId ?? null,
    rateLimits: (await control.rateLimits.get()).plan,
  });
}

/** `attachEmulator()` when `TURNKEY_EMULATOR_INFO` or `TURNKEY_EMULATOR_URL` is set, else `startEmulator(options)`. */
export async function startOrAttach(options: StartOptions = {}): Promise<Emulator> {
  const env = options.env ?? process.env;
  if (env[ENV.info] || env[ENV.url]) return attachEmulator(env);
  return startEmulator(options);
}
