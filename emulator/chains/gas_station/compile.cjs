const solc = require("solc");
const fs = require("fs");
const path = process.argv[2];
const input = {
  language: "Solidity",
  sources: { "GasStationDelegate.sol": { content: fs.readFileSync(path, "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "prague",
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
if (out.errors) for (const e of out.errors) console.error(e.formattedMessage);
const c = out.contracts["GasStationDelegate.sol"].GasStationDelegate;
process.stdout.write(JSON.stringify({
  compiler: "solc " + solc.version(),
  settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "prague" },
  abi: c.abi,
  bytecode: c.evm.bytecode.object,
  deployedBytecode: c.evm.deployedBytecode.object,
}, null, 1) + "\n");
