// Burning coins for a coupon, as the service does it, against rewardsim:
// a dropped answer is retried with the same id, a stock out or the user's
// limit is not retried, and a push storm invalidates the coupon once.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startRewardsim } from "rewardsim";
import { call, eventually, serviceFor } from "./helpers.mjs";

let sim, ch, svc;
before(async () => {
  sim = await startRewardsim();
  ch = await sim.newChannel();           // the library makes the key; the service gets it from ch.env()
  svc = await serviceFor(ch);
});
after(async () => { await svc?.close(); await sim?.close(); });

describe("claiming a coupon", { concurrency: true }, () => {
  test("commit-then-drop: retried with the same id, one coupon, coins burnt once", async () => {
    await ch.fault({ endpoint: "fetchCouponCode", virtualId: "VU-DROP", times: 1, action: { kind: "commit-then-drop" } });
    const r = await call(svc, "/coupons/claim", { userId: "VU-DROP", offerId: "OFFER-DEMO", coins: 100, claimId: "CLAIM-DROP" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "CLAIM-DROP" }, times: 2 });
    const user = (await call(svc, "/users/VU-DROP")).body;
    assert.equal(user.coins, 900);
    assert.equal(user.coupons.length, 1);
    const theirs = await ch.publisher.userCoupons("VU-DROP", "OFFER-DEMO"); // the simulator's side, by the library
    assert.equal(theirs.length, 1);
    assert.equal(theirs[0].coupon_code, user.coupons[0].code);
  });

  for (const code of ["COUPON_EXHAUSTED", "MAX_LIMIT_REACHED"]) {
    test(`${code}: not retried, coins refunded`, async () => {
      const userId = `VU-${code}`;
      await ch.fault({ endpoint: "fetchCouponCode", virtualId: userId, times: 1, action: { kind: "coupon-error", errorCode: code } });
      const r = await call(svc, "/coupons/claim", { userId, offerId: "OFFER-DEMO", coins: 100, claimId: `CLAIM-${code}` });
      assert.equal(r.status, 409);
      assert.equal(r.body.code, code);
      await ch.verify({ endpoint: "fetchCouponCode", where: { "/virtualId": userId }, times: 1 });
      assert.equal((await call(svc, `/users/${userId}`)).body.coins, 1000);
    });
  }

  test("a push storm invalidates the coupon once", async () => {
    const r = await call(svc, "/coupons/claim", { userId: "VU-STORM", offerId: "OFFER-DEMO", coins: 100, claimId: "CLAIM-STORM" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK", referenceId: "STORM-1", repeat: 10 });
    await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK", referenceId: "STORM-2", repeat: 10 });
    const delivered = async () => (await ch.journal({ kind: "webhook", limit: "100" })).entries.filter((e) => e.status === 200).length;
    await eventually(async () => (await delivered()) >= 20, "20 pushes answered 200");
    assert.equal(svc.books.pushes.size, 2, "two distinct pushes (referenceIds)");
    const user = (await call(svc, "/users/VU-STORM")).body;
    assert.deepEqual(user.coupons.map((c) => c.state), ["invalidated"]);
  });

  test("the library's own publisher works on another channel of the same run", async () => {
    const other = await sim.newChannel();
    const coupon = await other.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-LIB", extTransactionId: "LIB-1", coinsUsed: 100 });
    assert.ok(coupon.coupon_code);
    await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "LIB-1" }, never: true });
  });
});
