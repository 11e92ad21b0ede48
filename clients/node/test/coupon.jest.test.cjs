// Jest with its default CommonJS transform: require('rewardsim') loads the
// package's CommonJS build. One simulator per file, a channel per test.
const { startRewardsim, RewardsimError } = require("rewardsim");

let sim;
let ch;
beforeAll(async () => { sim = await startRewardsim(); }, 30000);
afterAll(() => sim.close());
beforeEach(async () => { ch = await sim.newChannel(); });

test("claims a coupon once", async () => {
  const coupon = await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-1", extTransactionId: "T-1", coinsUsed: 100 });
  expect(coupon.coupon_code).toBeTruthy();
  await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "T-1" }, times: 1 });
});

test("each test has a channel of its own", async () => {
  await ch.verify({ endpoint: "fetchCouponCode", never: true });
  await expect(ch.publisher.fetchCoupon({ offerId: "OFFER-VIP", virtualId: "VU-1", extTransactionId: "T-2", coinsUsed: 500 }))
    .rejects.toBeInstanceOf(RewardsimError);
});
