// rewardsim in a container, through Testcontainers (an optional peer
// dependency: install `testcontainers` beside `rewardsim` to use this module).
import { AbstractStartedContainer, GenericContainer, Wait } from "testcontainers";
import { Rewardsim } from "./index.js";

export const PUBLIC_PORT = 8080;
export const CONTROL_PORT = 8090;

/** The image of `make image` (docker load -i dist/image/rewardsim-image.tar), or REWARDSIM_IMAGE. */
export const DEFAULT_IMAGE = process.env.REWARDSIM_IMAGE || "rewardsim:latest";

/** A rewardsim container: both ports mapped, started when /__sim/health answers 200. */
export class RewardsimContainer extends GenericContainer {
  constructor(image = DEFAULT_IMAGE) {
    super(image);
    this.withExposedPorts(PUBLIC_PORT, CONTROL_PORT)
      .withWaitStrategy(Wait.forHttp("/__sim/health", CONTROL_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  async start() {
    return new StartedRewardsimContainer(await super.start());
  }
}

/** A started rewardsim container, used like startRewardsim()'s simulator. */
export class StartedRewardsimContainer extends AbstractStartedContainer {
  #sim;

  constructor(started) {
    super(started);
    // The control API answers IP-address and localhost Host headers only.
    const host = started.getHost() === "localhost" ? "127.0.0.1" : started.getHost();
    this.publicUrl = `http://${host}:${started.getMappedPort(PUBLIC_PORT)}`;
    this.controlUrl = `http://${host}:${started.getMappedPort(CONTROL_PORT)}`;
    this.#sim = new Rewardsim({ publicUrl: this.publicUrl, controlUrl: this.controlUrl });
  }

  /** The simulator this container runs (control(), health(), serviceKey(), newChannel()). */
  get sim() {
    return this.#sim;
  }

  /** A fresh channel like DEMOBANK; see Rewardsim.newChannel. */
  newChannel(options) {
    return this.#sim.newChannel(options);
  }

  async stop(options) {
    await this.#sim.close();
    return super.stop(options);
  }
}
