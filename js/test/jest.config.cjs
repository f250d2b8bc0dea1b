// The kit's own Jest run (tests/test_nodekit.py): one emulator for the run, the world
// restored before each test.
const path = require("node:path");

module.exports = {
  rootDir: path.join(__dirname, ".."),
  testMatch: ["<rootDir>/test/jest/**/*.test.cjs"],
  testEnvironment: "node",
  globalSetup: "turnkey-emulator/jest/global-setup",
  globalTeardown: "turnkey-emulator/jest/global-teardown",
  testTimeout: 60_000,
  maxWorkers: 1, // the files share the run's emulator and restore it before each test
};
