// node compile.cjs EarnContracts.sol > EarnContracts.json  (solc and @openzeppelin/contracts
// from npm on NODE_PATH; the versions are written into the JSON)
const solc = require("solc");
const fs = require("fs");
const path = require("path");
const file = process.argv[2];
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "prague",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
};
const input = { language: "Solidity", sources: { [file]: { content: fs.readFileSync(file, "utf8") } }, settings };
function findImports(name) {
  try {
    return { contents: fs.readFileSync(require.resolve(name), "utf8") };
  } catch (e) {
    return { error: "not found: " + name };
  }
}
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
let failed = false;
if (out.errors) for (const e of out.errors) { console.error(e.formattedMessage); if (e.severity === "error") failed = true; }
if (failed) process.exit(1);
const oz = require("@openzeppelin/contracts/package.json").version;
const contracts = {};
for (const [name, c] of Object.entries(out.contracts[file])) {
  contracts[name] = { abi: c.abi, bytecode: c.evm.bytecode.object, deployedBytecode: c.evm.deployedBytecode.object };
}
process.stdout.write(JSON.stringify({ compiler: "solc " + solc.version(), openzeppelin: oz, settings, contracts }, null, 1) + "\n");
