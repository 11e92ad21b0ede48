// The surface of issue 21 in TypeScript: type-checked (tsc --noEmit) against
// the package's declarations in make test; never run.
import { AssertionError } from "node:assert";
import { attachRewardsim, Channel, ChannelCredentials, FaultRule, Publisher, Report, LimitState, ReportFinding, RewardsimError, startRewardsim, SwitchState, WebhookInbox } from "rewardsim";
import { RewardsimContainer, StartedRewardsimContainer } from "rewardsim/testcontainers";

export async function surface(): Promise<void> {
  const sim = await startRewardsim();
  const url: string = sim.publicUrl + sim.controlUrl;
  const ch: Channel = await sim.newChannel();
  const name: string = ch.name;
  const pub: Publisher = ch.publisher;
  const coupon = await pub.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-1", extTransactionId: "T-1", coinsUsed: 100 });
  const code: unknown = coupon.coupon_code;
  const ref: string = await pub.referenceToken();
  await pub.getReward({ virtualId: "VU-1", extTransactionId: "TXN-1", amount: 10 });
  const token: string = await pub.userToken("VU-1");
  const cards = await pub.cards(token);
  await pub.reveal({ userToken: token, virtualId: "VU-1", rewardId: cards[0].rewardId });
  const session: string = await pub.sessionId("VU-1");
  const coupons = await pub.userCoupons("VU-1");
  const res = await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": "T-1" }, times: 1 });
  const count: number = res.count;
  await ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionId": { regex: "^T-" } }, atLeast: 1, since: pub.lastSeq ?? 0 });
  await ch.advanceClock("1h");
  await ch.fault({ endpoint: "GenerateSessionInfoV2", times: 1, action: { kind: "internal-error" } });
  await ch.reset();
  const inbox: WebhookInbox = await ch.webhookInbox();
  const push = await inbox.next("COUPON_INVALIDATED", { timeout: 5000 });
  try {
    await pub.fetchCoupon({ offerId: "OFFER-VIP", virtualId: "VU-1", extTransactionId: "T-2", coinsUsed: 500 });
  } catch (e) {
    if (e instanceof RewardsimError) {
      const why: string | null = e.reason;
      const status: number = e.status;
      const errorCode: string | null = e.errorCode;
      void [why, status, errorCode];
    } else if (e instanceof AssertionError) {
      throw e;
    }
  }
  // Issue 39: the channel as a service sees it, own keys, typed faults.
  const creds: ChannelCredentials = ch.credentials;
  const pem: string | null = creds.privateKeyPem;
  const vars = ch.env("PARTNER_");
  const rewardsUrl: string | undefined = vars.PARTNER_REWARDS_URL;
  const own = await sim.newChannel({ like: "DEMOBANK", privateKey: pem ?? "", webhookUrl: "http://127.0.0.1:9/hooks" });
  const certOnly = await sim.newChannel({ certificate: own.credentials.certificatePem });
  const canSign: boolean = certOnly.canSign;
  await own.setWebhookUrl("http://127.0.0.1:9/other");
  const mark: number = await own.mark();
  const claims = await own.findAll<{ extTransactionId: string }>("fetchCouponCode", { since: mark });
  const firstId: string | undefined = claims[0]?.extTransactionId;
  const rule: FaultRule = { endpoint: "fetchCouponCode", times: 1, action: { kind: "coupon-error", errorCode: "MAX_LIMIT_REACHED" } };
  await own.fault(rule);
  await own.fault({ endpoint: "fetchCouponCode", action: { kind: "commit-then-delay", delay: "2s" } });
  await own.verify({ endpoint: "fetchCouponCode", where: { "/offerId": { text: "DEMO" } }, never: true, since: mark });
  // Issue 52: switches typed by the values each takes.
  const sw: SwitchState = await own.setSwitch("coupons.duplicate", "reject");
  await sim.setSwitch("cards.listMaxLimit", 100, { channel: own.name });
  await sim.setSwitch("coupons.orderId", true);
  // @ts-expect-error a value the switch does not take
  await own.setSwitch("coupons.duplicate", "replay");
  await own.resetSwitch("coupons.duplicate");
  const held: LimitState = await own.limit({ inFlight: 4, rate: 50, wait: "250ms" });
  const n: number = held.stats.refused + (await own.limits())!.burst;
  await own.removeLimit();
  const inForce: string = (await sim.switches({ channel: own.name })).switches[0].value;
  void [sw, inForce, n];
  // Issue 51: the report from the test.
  const report: Report = await own.report({ failOn: "error", refTokenPerHour: 6 });
  const finding: ReportFinding | undefined = (await sim.report({ channel: own })).findings[0];
  const clause: string | undefined = finding?.clause;
  // @ts-expect-error: failOn is a severity or "none"
  await sim.report({ channel: "DEMOBANK", failOn: "fatal" });
  void [report, clause];
  const from: string | undefined = sim.process?.from;
  void [creds, rewardsUrl, canSign, firstId, from];
  await sim.close();
  const started = await startRewardsim({ scenario: "scenarios/default.yaml", flags: ["--journal-max-entries", "100"] });
  await started.close();
  const attached = await attachRewardsim("http://127.0.0.1:8080", "http://127.0.0.1:8090");
  await attached.close();
  const container: StartedRewardsimContainer = await new RewardsimContainer().start();
  const ch2: Channel = await container.newChannel();
  const urls: string = container.publicUrl + container.controlUrl;
  const engine: "podman" | "docker" = container.engine;
  await ch2.setWebhookUrl(container.hostUrl(8081) + "/hooks");   // the host, as the container reaches it
  // @ts-expect-error: a port is a number
  container.hostUrl("8081");
  await container.stop();
  void [url, name, code, ref, session, coupons, count, push, ch2, urls, engine];
}
