// The whole publisher flow with the Node package (dist/node/rewardsim.tgz,
// docs/node.md), Node 20+:
//
//   npm install ../../dist/node/rewardsim.tgz ../../dist/node/rewardsim-linux-x64.tgz
//   REWARDSIM_URL=http://127.0.0.1:8080 REWARDSIM_CONTROL_URL=http://127.0.0.1:8090 node publisher-flow.mjs
//
// Without REWARDSIM_URL it starts `rewardsim serve` itself (REWARDSIM_BIN, the
// platform package, or PATH). It makes a channel like DEMOBANK with a key of its own, walks the
// flow (every envelope signed, every signed answer verified by the library),
// provokes one failure of each kind, and exits non-zero at the first step
// that does not answer as the contract says.
import { attachRewardsim, RewardsimError, startRewardsim } from "rewardsim";

function check(cond, what, detail) {
  if (!cond) {
    console.error(`FAIL ${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

async function fails(promise) {
  try {
    check(false, "a failure answer", await promise);
  } catch (err) {
    if (!(err instanceof RewardsimError)) throw err;
    return err;
  }
}

const sim = process.env.REWARDSIM_URL ? await attachRewardsim() : await startRewardsim();
try {
  const ch = await sim.newChannel();
  const pub = ch.publisher;
  check(ch.name.startsWith("T-"), `channel ${ch.name} like DEMOBANK`, ch.info);
  const virtualId = `VU-NODE-${Date.now()}`;

  const ref = await pub.referenceToken();
  check(ref.length >= 16, "reference token issued", ref);
  const reward = await pub.getReward({ virtualId, extTransactionId: `TXN-${virtualId}`, amount: 250.5 });
  check(reward.rewards.length === 1, "GetReward issues a card", reward);
  const token = await pub.userToken(virtualId);
  const [card] = await pub.cards(token);
  check(card.isAlreadyRewarded === false, "listing shows the unscratched card", card);
  const revealed = await pub.reveal({ userToken: token, virtualId, rewardId: card.rewardId });
  check(revealed.status === true, "reveal answers the card, its SIGN verified", revealed);
  check((await pub.cards(token))[0].isAlreadyRewarded === true, "listing shows the card revealed", "");
  check((await pub.sessionId(virtualId)).length > 0, "session issued", "");
  const bank = await pub.bankCard({ virtualId, extTransactionId: `ORD-${virtualId}` });
  check(bank.status === true, "bank card issued", bank);
  const coupon = await pub.fetchCoupon({ offerId: "OFFER-DEMO", virtualId, extTransactionId: `CPN-${virtualId}`, coinsUsed: 100 });
  check(!!coupon.coupon_code, "fetchCouponCode delivers a code", coupon);
  await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": `CPN-${virtualId}` }, times: 1 });
  check(true, "verify: fetchCouponCode called once with that extTransactionId", "");

  // Provoked failures, one of each kind, each raised with its reason.
  const vip = await fails(pub.fetchCoupon({ offerId: "OFFER-VIP", virtualId, extTransactionId: `VIP-${virtualId}`, coinsUsed: 500 }));
  check(vip.errorCode === "NON_ELIGIBLE", `OFFER-VIP answers 403 NON_ELIGIBLE (${vip.reason})`, vip.body);
  await ch.fault({ endpoint: "GenerateSessionInfoV2", times: 1, action: { kind: "internal-error" } });
  const boom = await fails(pub.sessionId(virtualId));
  check(boom.errorString === "Internal Error!", "a fault rule answers Internal Error!", boom.body);
  await ch.advanceClock("1h");
  const expired = await fails(pub.cards(token));
  check(expired.status === 401, "an hour later on this channel's clock the user token answers HTTP 401", expired.body);
} finally {
  await sim.close();
}
console.log("node publisher flow: all steps passed");
