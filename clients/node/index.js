// The ES module face of the rewardsim library: one implementation
// (index.cjs), so import and require share classes (instanceof holds).
import lib from "./index.cjs";

export const { RewardsimError, startRewardsim, attachRewardsim, Rewardsim, Channel, WebhookInbox, Publisher, tempDir } = lib;
export default lib;
