// The whole publisher flow against a running `rewardsim serve`, with Node's
// own crypto and fetch only (Node 18+; no npm packages):
//
//   REWARDSIM_URL=http://127.0.0.1:8080 REWARDSIM_CONTROL_URL=http://127.0.0.1:8090 \
//   REWARDSIM_CERTS=../../certs node publisher-flow.mjs
//
// It exits non-zero at the first step that does not answer as the contract says.
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const BASE = process.env.REWARDSIM_URL ?? "http://127.0.0.1:8080";
const CONTROL = process.env.REWARDSIM_CONTROL_URL ?? "http://127.0.0.1:8090";
const CERTS = process.env.REWARDSIM_CERTS ?? "../../certs";
const CHANNEL = "DEMOBANK";
const APP_KEY = "ServiceAppKey DEMOAPPKEY:DEMOSECKEY";

// The publisher's key: PEM PKCS#8 (certs/publisher-dev.key).
const publisherKey = createPrivateKey(readFileSync(join(CERTS, "publisher-dev.key")));

function check(cond, what, detail) {
  if (!cond) {
    console.error(`FAIL ${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

// An envelope: BDATA is the base64 of the JSON payload; SIGN is
// SHA256withRSA over the BDATA string.
function seal(payload, key = publisherKey) {
  const BDATA = Buffer.from(JSON.stringify(payload)).toString("base64");
  const SIGN = sign("sha256", Buffer.from(BDATA), key).toString("base64");
  return { CHANNELID: CHANNEL, SIGN, BDATA };
}

async function call(path, { body, bearer, appKey, method = "POST" } = {}) {
  const headers = { "Content-Type": "application/json" };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (appKey) { headers.Authorization = APP_KEY; headers["X-CHANNELID"] = CHANNEL; }
  const res = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

// open verifies a signed answer with the service certificate and returns
// its decoded BDATA; a bare failure {STATUS, ERRORSTRING} is an error.
function open(res, servicePub, what) {
  check(res.status === 200 && res.body.SIGN && res.body.BDATA, `${what}: signed envelope`, res.body);
  const ok = verify("sha256", Buffer.from(res.body.BDATA), servicePub, Buffer.from(res.body.SIGN, "base64"));
  check(ok, `${what}: SIGN verifies with /__sim/certs/service.pem`, res.body);
  return JSON.parse(Buffer.from(res.body.BDATA, "base64").toString("utf8"));
}

// ddMMyyyyHHmmss in India time, as GetReward's dateandtime asks.
function dateandtime(d = new Date()) {
  const ist = new Date(d.getTime() + 330 * 60 * 1000);
  const p = (n) => String(n).padStart(2, "0");
  return p(ist.getUTCDate()) + p(ist.getUTCMonth() + 1) + ist.getUTCFullYear() + p(ist.getUTCHours()) + p(ist.getUTCMinutes()) + p(ist.getUTCSeconds());
}

const virtualId = `VU-NODE-${Date.now()}`;

// 0. The service certificate that verifies every signed answer.
const certRes = await fetch(CONTROL + "/__sim/certs/service.pem");
check(certRes.status === 200, "GET /__sim/certs/service.pem", String(certRes.status));
const servicePub = createPublicKey(await certRes.text());

// 1. Reference token (signed).
const ref = open(await call("/api/getSecuredReferenceToken", { body: seal({ bName: CHANNEL }) }), servicePub, "getSecuredReferenceToken");
check(typeof ref.referenceKey === "string" && ref.referenceKey.length >= 16, "reference token issued", ref);

// 2. GetReward with the reference token: one card for a UPI payment.
const reward = await call("/api/GetReward", {
  bearer: ref.referenceKey,
  body: { channelName: CHANNEL, virtualId, triggerEventType: "UPI", extTransactionId: `TXN-${virtualId}`, amount: 250.5, dateandtime: dateandtime() },
});
check(reward.status === 200 && reward.body.status === true && reward.body.rewards.length === 1, "GetReward issues a card", reward.body);

// 3. User token (signed), scoped to virtualId.
const user = open(await call("/api/GetAuthToken", { body: seal({ channelName: CHANNEL, virtualId }) }), servicePub, "GetAuthToken");
check(typeof user.token === "string", "user token issued", user);

// 4. Listing: the new card, not yet scratched.
const list = await call("/api/GetAllScratchCardsByUserId", { method: "GET", bearer: user.token });
check(list.status === 200 && list.body.total === 1 && list.body.rewards[0].isAlreadyRewarded === false, "listing shows the unscratched card", list.body);
const rewardId = list.body.rewards[0].rewardId;

// 5. Reveal (signed, with the user token); the answer's signature verified.
const revealed = open(await call("/api/FetchRewardInfo", {
  bearer: user.token, body: seal({ channelName: CHANNEL, rewardId: String(rewardId), virtualId }),
}), servicePub, "FetchRewardInfo");
console.log("     revealed:", JSON.stringify(revealed).slice(0, 160));
check(revealed.status === true && String(revealed.rewardId ?? rewardId) === String(rewardId), "reveal answers the card", revealed);
const after = await call("/api/GetAllScratchCardsByUserId", { method: "GET", bearer: user.token });
check(after.status === 200 && after.body.rewards[0].isAlreadyRewarded === true, "listing shows the card revealed", after.body);

// 6. Bank session (signed).
const session = open(await call("/api/GenerateSessionInfoV2", { body: seal({ bName: CHANNEL, virtualId }) }), servicePub, "GenerateSessionInfoV2");
check(typeof session.sessionId === "string" && session.sessionId.length > 0, "session issued", session);

// 7. GetScratchCardForBank (signed).
const bank = open(await call("/api/GetScratchCardForBank", {
  body: seal({ virtualId, transDateAndTime: "2026-01-15 09:59:00", amount: "500.00", mcc: "5411", extTransactionId: `ORD-${virtualId}`, campaignId: "CAMP-DEMO", deviceToken: "node-device" }),
}), servicePub, "GetScratchCardForBank");
check(bank.status === true && bank.deepLink.length > 0, "bank card issued", bank);

// 8. fetchCouponCode (ServiceAppKey).
const coupon = await call("/api/fetchCouponCode", {
  appKey: true, body: { offerId: "OFFER-DEMO", virtualId, channelName: CHANNEL, extTransactionId: `CPN-${virtualId}`, coinsUsed: "100" },
});
check(coupon.status === 200 && coupon.body.status === 200 && coupon.body.data.coupon_code, "fetchCouponCode delivers a code", coupon.body);

// Provoked failures, one of each kind.
// a. A SIGN that is not over this BDATA: the bare failure "Signature Mismatch!".
const forged = seal({ bName: CHANNEL });
forged.BDATA = Buffer.from(JSON.stringify({ bName: CHANNEL, extra: 1 })).toString("base64");
const mismatch = await call("/api/getSecuredReferenceToken", { body: forged });
check(mismatch.body.STATUS === "FAILURE" && mismatch.body.ERRORSTRING === "Signature Mismatch!", "tampered BDATA answers Signature Mismatch!", mismatch.body);

// b. A bearer token the service never issued: HTTP 401.
const unauth = await call("/api/GetAllScratchCardsByUserId", { method: "GET", bearer: "not-a-token-the-service-issued" });
check(unauth.status === 401, "unknown bearer token answers HTTP 401", unauth);

// c. A coupon error code: OFFER-VIP is for VIP-* users only. The error is
// in the body; the HTTP status is 200 or mirrors it, per the scenario's
// switches.coupons (CPN-3).
const vip = await call("/api/fetchCouponCode", {
  appKey: true, body: { offerId: "OFFER-VIP", virtualId, channelName: CHANNEL, extTransactionId: `VIP-${virtualId}`, coinsUsed: "100" },
});
check((vip.status === 200 || vip.status === 403) && vip.body.status === 403 && vip.body.errorCode === "NON_ELIGIBLE", "OFFER-VIP answers 403 NON_ELIGIBLE", vip);

console.log("node publisher flow: all steps passed");
