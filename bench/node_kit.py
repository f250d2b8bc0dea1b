"""The Node test kit (``js/``, issue 29), timed: what a Vitest or Jest run pays for it.

``python bench/node_kit.py [--starts N] [--restores N] [--quick] [--json]`` runs one node
process over the built kit (``tests/nodekit.py`` installs and builds it as the tests do) that
measures, interleaved so that both sides of a ratio see the same machine:

* **start**: ``startEmulator()`` until its first stamped request (``getWhoami`` of
  ``@turnkey/sdk-server``, the package loaded beforehand) is answered, then ``stop()``
  (not timed); its floor is a bare ``python -c pass`` spawned from node and waited for;
* **restore**: the per-test step of ``isolateEachTest()`` (``restore`` of the set-up's
  snapshot with the observations emptied, one control request), against one ``getWhoami`` round
  trip of ``@turnkey/sdk-server`` (stamping included) to the same server.

Figures are medians in ms and their ratios to the floor of the same run, with
``/proc/loadavg`` beside them. Exit 77 without node, npm or the registry.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from measuring import unavailable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.nodekit import JS, kit_env, kit_or_skip  # noqa: E402

SCRIPT = r"""
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { startEmulator } from "./dist/index.js";
import { restoreStartingWorld } from "./dist/jest.js";  // the same step as Vitest's, without vitest
await import("@turnkey/sdk-server");  // the package's own import cost is not the kit's

const [starts, restores] = process.argv.slice(2).map(Number);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const python = process.env.TURNKEY_EMULATOR_PYTHON;
const bare = () => new Promise((resolve, reject) => {
  const child = spawn(python, ["-c", "pass"], { stdio: "ignore" });
  child.once("exit", (code) => code === 0 ? resolve() : reject(new Error(`exit ${code}`)));
});
const timed = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };

const start = [], floor = [];
for (let i = 0; i < starts + 1; i++) {  // the first of each: a warm-up
  let emu;
  const s = await timed(async () => {
    emu = await startEmulator();
    await emu.turnkey.apiClient().getWhoami({});
  });
  await emu.stop();
  const f = await timed(bare);
  if (i) { start.push(s); floor.push(f); }
}

const emu = await startEmulator();
const client = emu.turnkey.apiClient();
process.env.TURNKEY_EMULATOR_INFO = JSON.stringify(emu.info);
process.env.TURNKEY_EMULATOR_SNAPSHOT_ID = await emu.control.snapshot();
const restore = [], whoami = [];
for (let i = 0; i < restores + 10; i++) {
  const r = await timed(() => restoreStartingWorld());
  const w = await timed(() => client.getWhoami({}));
  if (i >= 10) { restore.push(r); whoami.push(w); }
}
await emu.stop();
console.log(JSON.stringify({
  start: median(start), pythonPass: median(floor), restore: median(restore), whoami: median(whoami),
  starts: start.length, restores: restore.length,
}));
"""


def run(starts: int, restores: int) -> dict[str, Any]:
    try:
        node = kit_or_skip()
    except BaseException as exc:  # pytest's Skipped: no node, npm or registry here
        unavailable(f"the Node kit: {exc}")
    script = JS / ".bench-node-kit.mjs"
    script.write_text(SCRIPT)
    try:
        done = subprocess.run(
            [node, str(script), str(starts), str(restores)],
            cwd=JS, env=kit_env(), capture_output=True, text=True, timeout=1800, check=False,
        )  # fmt: skip
    finally:
        script.unlink()
    if done.returncode != 0:
        raise SystemExit(f"the node script failed: {done.stderr[-3000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--restores", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run(1, 5) if args.quick else run(args.starts, args.restores)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"| row | median | × floor | floor | n |  (loadavg {' '.join(figures['loadavg'])})")
    print("|---|---|---|---|---|")
    print(
        f"| startEmulator() to first answered request | {figures['start']:.0f} ms "
        f"| {figures['start'] / figures['pythonPass']:.1f} | python -c pass "
        f"{figures['pythonPass']:.0f} ms | {figures['starts']} |"
    )
    print(
        f"| per-test restore (isolateEachTest, one request) | {figures['restore']:.2f} ms "
        f"| {figures['restore'] / figures['whoami']:.1f} | getWhoami round trip "
        f"{figures['whoami']:.2f} ms | {figures['restores']} |"
    )


if __name__ == "__main__":
    main()
