// rewardsim/testcontainers against a real engine: the image of `make image`,
// loaded into it (clients/clients_test.go does that and sets DOCKER_HOST).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { containerEngine, RewardsimContainer } from "rewardsim/testcontainers";

let container;
before(async () => { container = await new RewardsimContainer(process.env.REWARDSIM_IMAGE).start(); });
after(async () => { await container?.stop(); });

test("a channel of the container issues a card", async () => {
  assert.match(container.publicUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  const ch = await container.newChannel();
  const reward = await ch.publisher.getReward({ virtualId: "VU-TC", extTransactionId: "TXN-TC", amount: 99 });
  assert.equal(reward.rewards.length, 1);
  const token = await ch.publisher.userToken("VU-TC");
  const [card] = await ch.publisher.cards(token);
  assert.equal(card.rewardId, reward.rewards[0].rewardId);
});

// A receiver on the host, as a team's service listens: on 0.0.0.0, so
// that a connection from the engine's network is taken.
async function receiver(host) {
  const pushes = [];
  let arrived;
  const first = new Promise((resolve) => { arrived = resolve; });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      pushes.push({ path: req.url, body: JSON.parse(body) });
      res.setHeader("Content-Type", "application/json");
      res.end('{"status":"OK"}');
      arrived();
    });
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  return { port: server.address().port, pushes, first, close: () => new Promise((r) => server.close(r)) };
}

test("a push from the container reaches a service on the host at hostUrl(port)", async () => {
  const engine = await containerEngine();
  assert.equal(container.engine, engine);
  assert.equal(container.hostUrl(8081), engine === "podman" ? "http://host.containers.internal:8081" : "http://host.docker.internal:8081");
  assert.throws(() => container.hostUrl(0), TypeError);

  const svc = await receiver("0.0.0.0");
  try {
    const ch = await container.newChannel();
    await ch.setWebhookUrl(`${container.hostUrl(svc.port)}/hooks/coupon-status`);
    await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK" });
    await Promise.race([svc.first, new Promise((_, reject) => setTimeout(() => reject(new Error("no push arrived in 20 s")), 20_000))]);
    assert.equal(svc.pushes[0].path, "/hooks/coupon-status");
    assert.equal(svc.pushes[0].body.channelName, ch.name);
    assert.equal(svc.pushes[0].body.eventType, "COUPON_INVALIDATED");
  } finally {
    await svc.close();
  }
});

test("a service listening on 127.0.0.1 alone refuses the container's push", async () => {
  const svc = await receiver("127.0.0.1");
  try {
    const ch = await container.newChannel();
    await ch.setWebhookUrl(`${container.hostUrl(svc.port)}/hooks/coupon-status`);
    const { pushes: [push] } = await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK" });
    let attempts = [];
    for (const deadline = Date.now() + 15_000; attempts.length === 0 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 200));
      attempts = (await container.sim.control("GET", `/__sim/webhooks/${push.id}`)).attempts ?? [];
    }
    assert.ok(attempts.length > 0, "no delivery attempt in 15 s");
    assert.equal(attempts[0].ok, false);
    assert.match(attempts[0].error, /connection refused/);
    assert.equal(svc.pushes.length, 0);
  } finally {
    await svc.close();
  }
});
