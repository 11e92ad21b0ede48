// A payment issues a card and the user reveals it, as the service does it,
// signing with the team's own key (not one the library made); an expired
// user token is renewed once. Runs beside claim.test.mjs (its own process).
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import { startRewardsim } from "rewardsim";
import { call, serviceFor } from "./helpers.mjs";

const teamKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" });
let sim, ch, svc;
before(async () => {
  sim = await startRewardsim();
  ch = await sim.newChannel({ like: "DEMOBANK", privateKey: teamKey });
  svc = await serviceFor(ch);
});
after(async () => { await svc?.close(); await sim?.close(); });

test("runs without Go and without REWARDSIM_BIN: the simulator came with the package", { skip: !process.env.REWARDSIM_EXPECT_PACKAGED }, () => {
  assert.equal(process.env.REWARDSIM_BIN, undefined);
  assert.equal((process.env.PATH ?? "").split(delimiter).some((d) => d && existsSync(join(d, "go"))), false);
  assert.match(sim.process.from, /^@rewardsim\//);
});

test("a payment issues a card; the user reveals it once", async () => {
  const paid = await call(svc, "/payments", { userId: "VU-PAY", paymentId: "PAY-1", amount: 250.5 });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const [card] = paid.body.cards;
  const revealed = await call(svc, "/cards/reveal", { userId: "VU-PAY", rewardId: card.rewardId });
  assert.equal(revealed.status, 200, JSON.stringify(revealed.body));
  assert.equal(revealed.body.status, true);
  await ch.verify({ endpoint: "GetReward", where: { "/extTransactionId": "PAY-1", "/virtualId": "VU-PAY" }, times: 1 });
  const [reveal] = await ch.findAll("FetchRewardInfo");
  assert.equal(reveal.rewardId, String(card.rewardId));
  assert.equal((await call(svc, "/cards/reveal", { userId: "VU-PAY", rewardId: card.rewardId })).status, 409, "a card reveals once");
});

test("an expired user token is renewed once, then the reveal succeeds", async () => {
  const first = (await call(svc, "/payments", { userId: "VU-EXP", paymentId: "PAY-EXP-1", amount: 100 })).body.cards[0];
  const second = (await call(svc, "/payments", { userId: "VU-EXP", paymentId: "PAY-EXP-2", amount: 100 })).body.cards[0];
  assert.equal((await call(svc, "/cards/reveal", { userId: "VU-EXP", rewardId: first.rewardId })).status, 200);
  const mark = await ch.mark();
  await ch.advanceClock("1h"); // past the 30-minute user token the service cached
  const r = await call(svc, "/cards/reveal", { userId: "VU-EXP", rewardId: second.rewardId });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await ch.verify({ endpoint: "GetAuthToken", where: { "/virtualId": "VU-EXP" }, since: mark, times: 1 });
  await ch.verify({ endpoint: "FetchRewardInfo", where: { "/virtualId": "VU-EXP" }, since: mark, times: 2 });
});
