// The kit under Jest against a real `python -m emulator serve`: the run's emulator (from the
// global set-up, in a worker), @turnkey/sdk-server through it, the per-test restore, the outbox.
const { DEFAULT_ETHEREUM_ACCOUNTS } = require("@turnkey/sdk-server");
const { ENV } = require("turnkey-emulator");
const { emulator, isolateEachTest } = require("turnkey-emulator/jest");

isolateEachTest();

const walletNames = async () => {
  const emu = await emulator();
  const { wallets } = await emu.turnkey.apiClient().getWallets({});
  return wallets.map((wallet) => wallet.walletName);
};

test("the global set-up exported the run's emulator to this worker", async () => {
  const emu = await emulator();
  expect(process.env[ENV.url]).toBe(emu.baseUrl);
  expect(process.env[ENV.snapshotId]).toMatch(/^snapshot-\d+$/);
  const whoami = await emu.turnkey.apiClient().getWhoami({});
  expect([whoami.organizationId, whoami.userId]).toEqual([emu.organizationId, emu.userId]);
});

test("a wallet made in one test...", async () => {
  const emu = await emulator();
  const { addresses } = await emu.turnkey
    .apiClient()
    .createWallet({ walletName: "jest wallet", accounts: DEFAULT_ETHEREUM_ACCOUNTS });
  expect(addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(await walletNames()).toEqual(["jest wallet"]);
});

test("...is gone in the next", async () => {
  expect(await walletNames()).toEqual([]);
});

test("an invitation lands in the outbox, read by waitForNext", async () => {
  const emu = await emulator();
  const client = emu.turnkey.apiClient();
  await client.createInvitations({
    invitations: [
      {
        receiverUserName: "Grace",
        receiverUserEmail: "grace@example.com",
        receiverUserTags: [],
        accessType: "ACCESS_TYPE_WEB",
        senderUserId: emu.userId,
      },
    ],
  });
  const message = await emu.control.outbox.waitForNext("grace@example.com", { after: null });
  expect([message.channel, message.to, message.template]).toEqual(["email", "grace@example.com", "invitation"]);
});
