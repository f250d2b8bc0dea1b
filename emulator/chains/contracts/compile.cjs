// Compile one contract of this folder: node compile.cjs Name > Name.json (solc from npm, pinned
// by the version in the output; the same settings as gas_station/compile.cjs).
const solc = require("solc");
const fs = require("fs");
const name = process.argv[2];
const file = name + ".sol";
const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: "prague" };
const input = {
  language: "Solidity",
  sources: { [file]: { content: fs.readFileSync(__dirname + "/" + file, "utf8") } },
  settings: {
    ...settings,
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of out.errors || []) {
  console.error(e.formattedMessage);
  failed = failed || e.severity === "error";
}
if (failed) process.exit(1);
const c = out.contracts[file][name];
process.stdout.write(JSON.stringify({
  compiler: "solc " + solc.version(),
  settings,
  abi: c.abi,
  bytecode: c.evm.bytecode.object,
  deployedBytecode: c.evm.deployedBytecode.object,
}, null, 1) + "\n");
