// Type declarations of rewardsim/testcontainers.
import { AbstractStartedContainer, GenericContainer, StartedTestContainer, StopOptions, StoppedTestContainer } from "testcontainers";
import { Channel, NewChannelOptions, Rewardsim } from "./index.js";

export const PUBLIC_PORT: 8080;
export const CONTROL_PORT: 8090;
export const DEFAULT_IMAGE: string;
export const HOST_NAMES: { readonly podman: "host.containers.internal"; readonly docker: "host.docker.internal" };
export function containerEngine(): Promise<"podman" | "docker">;

export class RewardsimContainer extends GenericContainer {
  constructor(image?: string);
  start(): Promise<StartedRewardsimContainer>;
}

export class StartedRewardsimContainer extends AbstractStartedContainer {
  constructor(started: StartedTestContainer, engine?: "podman" | "docker");
  readonly engine: "podman" | "docker";
  /** http://host.containers.internal:PORT (podman) or http://host.docker.internal:PORT (docker). */
  hostUrl(port: number): string;
  readonly publicUrl: string;
  readonly controlUrl: string;
  readonly sim: Rewardsim;
  newChannel(options?: NewChannelOptions): Promise<Channel>;
  stop(options?: Partial<StopOptions>): Promise<StoppedTestContainer>;
}
