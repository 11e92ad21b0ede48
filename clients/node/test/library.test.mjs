// The surface of issue 21 as a publisher's node:test suite uses it. Run from
// a project that installed only dist/node/rewardsim.tgz (clients/clients_test.go).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { attachRewardsim, RewardsimError, startRewardsim } from "rewardsim";

let sim;
before(async () => { sim = await startRewardsim(); });
after(async () => { await sim?.close(); });

// Two suites at once, each on its own channel, with the same transaction ids.
describe("two suites at once", { concurrency: true }, () => {
  for (const suite of ["A", "B"]) {
    describe(`isolated channel ${suite}`, () => {
      test("verify counts this channel's calls only, and a failed verify names the near misses", async () => {
        const ch = await sim.newChannel();
        const coupon = await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-1", extTransactionId: "T-1", coinsUsed: 100 });
        assert.ok(coupon.coupon_code, JSON.stringify(coupon));
        await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "T-1" }, times: 1 });
        await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": { regex: "^T-" } }, atLeast: 1 });
        await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "NOPE" }, never: true });
        await ch.verify({ endpoint: "fetchCouponCode", since: ch.publisher.lastSeq + 1, never: true });
        await assert.rejects(
          ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "T-2" }, times: 1 }),
          (err) => {
            assert.equal(err.name, "AssertionError");
            assert.match(err.message, /counted 0/);
            assert.match(err.message, /near misses/);
            assert.match(err.message, /T-1/);
            return true;
          },
        );
      });
    });
  }
});

describe("a channel", () => {
  test("its clock moves alone", async () => {
    const ch = await sim.newChannel();
    const other = await sim.newChannel();
    const mine = await ch.publisher.userToken("VU-CLOCK");
    const theirs = await other.publisher.userToken("VU-CLOCK");
    await ch.advanceClock("1h"); // beyond the 30-minute user token
    await assert.rejects(ch.publisher.cards(mine), (err) => err instanceof RewardsimError && err.status === 401);
    assert.deepEqual(await other.publisher.cards(theirs), []);
    assert.notEqual((await ch.clock()).now, (await other.clock()).now);
  });

  test("a failure answer is raised with the contract's error and its reason", async () => {
    const ch = await sim.newChannel();
    await assert.rejects(
      ch.publisher.fetchCoupon({ offerId: "OFFER-VIP", virtualId: "VU-2", extTransactionId: "T-VIP", coinsUsed: 500 }),
      (err) => err instanceof RewardsimError && err.errorCode === "NON_ELIGIBLE" && err.body.status === 403 && !!err.reason,
    );
    await ch.fault({ endpoint: "GenerateSessionInfoV2", times: 1, action: { kind: "internal-error" } });
    await assert.rejects(ch.publisher.sessionId("VU-2"),
      (err) => err instanceof RewardsimError && err.errorString === "Internal Error!" && !!err.reason);
    assert.ok(await ch.publisher.sessionId("VU-2"), "a one-shot fault fires once");
  });

  test("a webhook push reaches the inbox", async () => {
    const ch = await sim.newChannel();
    await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-3", extTransactionId: "T-3", coinsUsed: 100 });
    const inbox = await ch.webhookInbox();
    await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK" });
    const push = await inbox.next("COUPON_INVALIDATED", { timeout: 10000 });
    assert.equal(push.channelName, ch.name);
    assert.equal(push.reason, "OUT_OF_STOCK");
    const [coupon] = await ch.publisher.userCoupons("VU-3", "OFFER-DEMO");
    assert.equal(coupon.state, "invalidated");
  });

  test("the card flow, signed and verified", async () => {
    const ch = await sim.newChannel();
    const pub = ch.publisher;
    const reward = await pub.getReward({ virtualId: "VU-CARD", extTransactionId: "TXN-CARD", amount: 250.5 });
    assert.equal(reward.rewards.length, 1);
    const token = await pub.userToken("VU-CARD");
    const [card] = await pub.cards(token);
    assert.equal(card.isAlreadyRewarded, false);
    const revealed = await pub.reveal({ userToken: token, virtualId: "VU-CARD", rewardId: card.rewardId });
    assert.equal(revealed.status, true);
    await assert.rejects(pub.reveal({ userToken: token, virtualId: "VU-CARD", rewardId: card.rewardId }), RewardsimError);
    await ch.verify({ endpoint: "FetchRewardInfo", where: { "/virtualId": "VU-CARD" }, times: 2 });
    assert.ok((await pub.referenceToken()).length >= 16);
    const bank = await pub.bankCard({ virtualId: "VU-CARD", extTransactionId: "ORD-CARD" });
    assert.equal(bank.status, true);
    await pub.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-CARD", extTransactionId: "T-CARD", coinsUsed: 100 });
    assert.equal((await pub.userCoupons("VU-CARD")).length, 1);
    await ch.reset(); // state and journal of this channel only
    assert.deepEqual(await pub.userCoupons("VU-CARD"), []);
    await ch.verify({ endpoint: "FetchRewardInfo", never: true });
  });

  test("attachRewardsim uses a running simulator", async () => {
    const attached = await attachRewardsim(sim.publicUrl, sim.controlUrl);
    const ch = await attached.newChannel({ prefix: "ATTACHED" });
    assert.match(ch.name, /^ATTACHED-/);
    assert.ok(await ch.publisher.sessionId("VU-4"));
    await attached.close();
  });

  test("a simulator that cannot start says what to set", async () => {
    await assert.rejects(startRewardsim({ bin: "/nonexistent/rewardsim" }), /REWARDSIM_BIN/);
  });
});
