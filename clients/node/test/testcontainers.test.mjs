// rewardsim/testcontainers against a real engine: the image of `make image`,
// loaded into it (clients/clients_test.go does that and sets DOCKER_HOST).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { RewardsimContainer } from "rewardsim/testcontainers";

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
