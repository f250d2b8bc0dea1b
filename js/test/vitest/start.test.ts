// startEmulator()'s own behaviour: its own server beside the run's, stop(), and the errors
// that name the fix.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { EmulatorStartError, attachEmulator, startEmulator } from "turnkey-emulator";
import { emulator } from "turnkey-emulator/vitest";

test("startEmulator() starts a server of its own; stop() ends it", async () => {
  const emu = await startEmulator({ seed: 7, authProxy: { enabledProviders: ["passkey"] } });
  try {
    const run = await emulator();
    expect(emu.baseUrl).not.toBe(run.baseUrl);
    expect(emu.owned).toBe(true);
    expect(emu.authProxyUrl).toBe(`${emu.baseUrl}/authproxy`);
    const again = await startEmulator({ seed: 7 });
    expect(again.organizationId).toBe(emu.organizationId); // --seed: the same ids
    await again.stop();
    const health = await emu.control.health();
    expect(health).toEqual({ ok: true, organizationId: emu.organizationId });
  } finally {
    await emu.stop();
  }
  const gone = await fetch(`${emu.baseUrl}/emulator/v1/health`).catch((e) => e);
  expect(gone).toBeInstanceOf(Error);
});

test("attachEmulator() from a URL reads the public half and the Auth Proxy", async () => {
  const emu = await startEmulator({ authProxy: true, controlToken: "s3cret" });
  try {
    const attached = await attachEmulator({
      TURNKEY_EMULATOR_URL: emu.baseUrl,
      TURNKEY_EMULATOR_CONTROL_TOKEN: "s3cret",
      TURNKEY_EMULATOR_API_PRIVATE_KEY: emu.apiPrivateKey,
    });
    expect(attached.owned).toBe(false);
    expect(attached.organizationId).toBe(emu.organizationId);
    expect(attached.userId).toBe(emu.userId);
    expect(attached.overrides).toEqual(emu.overrides);
    expect(attached.authProxyConfigId).toBe(emu.authProxyConfigId);
    expect((await attached.turnkey.apiClient().getWhoami({})).userId).toBe(emu.userId);
    const keyless = await attachEmulator({ TURNKEY_EMULATOR_URL: emu.baseUrl, TURNKEY_EMULATOR_CONTROL_TOKEN: "s3cret" });
    expect(() => keyless.turnkey).toThrow(/needs the root API private key: set TURNKEY_EMULATOR_API_PRIVATE_KEY/);
    const refused = await attachEmulator({ TURNKEY_EMULATOR_URL: emu.baseUrl }).catch((e) => e);
    expect(refused.status).toBe(401);
    await attached.stop(); // attached: leaves the server alone
    expect((await emu.control.health()).ok).toBe(true);
  } finally {
    await emu.stop();
  }
});

test("a Python without the emulator: the error names the install command", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tke-"));
  const python = join(dir, "python");
  // the same interpreter without its site-packages: no `emulator` to import
  writeFileSync(python, `#!/bin/sh\ncd "${dir}" && exec "${process.env.TURNKEY_EMULATOR_PYTHON ?? "python3"}" -S "$@"\n`);
  chmodSync(python, 0o755);
  const error = await startEmulator({ python, env: { PATH: process.env.PATH } }).catch((e) => e);
  expect(error).toBeInstanceOf(EmulatorStartError);
  expect(error.message).toContain("python -m pip install turnkey-emulator");
  expect(error.message).toContain("TURNKEY_EMULATOR_PYTHON");
});

test("no interpreter at all: the error says so", async () => {
  const error = await startEmulator({ python: "/nonexistent/python3" }).catch((e) => e);
  expect(error).toBeInstanceOf(EmulatorStartError);
  expect(error.message).toMatch(/no Python interpreter found \(tried \/nonexistent\/python3\): set TURNKEY_EMULATOR_PYTHON/);
});
