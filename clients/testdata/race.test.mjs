// A webhook test that races its own teardown, on purpose: it claims a
// coupon through the service, schedules a coupon-status push and ends at
// once, so after() closes the service's HTTP server while the push may be
// on its way (WH-2: webhook-not-ok, some runs and not others). It sits
// beside examples/node-service's tests when clients/node_test.go sweeps
// them (TestNodeServiceSweep): a race no fault caused must grade no row.
import { after, before, test } from "node:test";
import { startRewardsim } from "rewardsim";
import { call, serviceFor } from "./helpers.mjs";

let sim, ch, svc;
before(async () => {
  sim = await startRewardsim();
  ch = await sim.newChannel();
  svc = await serviceFor(ch);
});
after(async () => { await svc?.close(); await sim?.close(); });

test("a push arrives while the service shuts down", async () => {
  await call(svc, "/coupons/claim", { userId: "VU-RACE", offerId: "OFFER-DEMO", coins: 100, claimId: "CLAIM-RACE" });
  await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK", referenceId: "RACE-1", retry: { kind: "none" } });
});
