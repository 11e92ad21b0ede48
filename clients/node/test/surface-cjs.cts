// require("rewardsim") from TypeScript compiled as CommonJS: the package's
// index.d.cts; type-checked (tsc --noEmit) in make test, never run.
import rewardsim = require("rewardsim");

export async function surfaceCjs(): Promise<void> {
  const sim: rewardsim.Rewardsim = await rewardsim.startRewardsim();
  const ch: rewardsim.Channel = await sim.newChannel();
  const c: rewardsim.ChannelCredentials = ch.credentials;
  void c;
  await sim.close();
}
