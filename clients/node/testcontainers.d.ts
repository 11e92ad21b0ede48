// Type declarations of rewardsim/testcontainers.
import { AbstractStartedContainer, GenericContainer, StartedTestContainer, StopOptions, StoppedTestContainer } from "testcontainers";
import { Channel, NewChannelOptions, Rewardsim } from "./index.js";

export const PUBLIC_PORT: 8080;
export const CONTROL_PORT: 8090;
export const DEFAULT_IMAGE: string;

export class RewardsimContainer extends GenericContainer {
  constructor(image?: string);
  start(): Promise<StartedRewardsimContainer>;
}

export class StartedRewardsimContainer extends AbstractStartedContainer {
  constructor(started: StartedTestContainer);
  readonly publicUrl: string;
  readonly controlUrl: string;
  readonly sim: Rewardsim;
  newChannel(options?: NewChannelOptions): Promise<Channel>;
  stop(options?: Partial<StopOptions>): Promise<StoppedTestContainer>;
}
