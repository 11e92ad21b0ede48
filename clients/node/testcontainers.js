// rewardsim in a container, through Testcontainers (an optional peer
// dependency: install `testcontainers` beside `rewardsim` to use this module).
import { AbstractStartedContainer, GenericContainer, Wait, getContainerRuntimeClient } from "testcontainers";
import { Rewardsim } from "./index.js";

export const PUBLIC_PORT = 8080;
export const CONTROL_PORT = 8090;

/** The image of `make image` (docker load -i dist/image/rewardsim-image.tar), or REWARDSIM_IMAGE. */
export const DEFAULT_IMAGE = process.env.REWARDSIM_IMAGE || "rewardsim:latest";

/**
 * The name a container reaches the host by, per engine: podman writes
 * host.containers.internal into every container's /etc/hosts; Docker Desktop
 * has host.docker.internal, and Docker Engine on Linux has it when asked
 * (--add-host host.docker.internal:host-gateway, which start() does).
 */
export const HOST_NAMES = Object.freeze({ podman: "host.containers.internal", docker: "host.docker.internal" });

/** "podman" or "docker": the engine Testcontainers talks to (podman names itself in the API's /version). */
export async function containerEngine() {
  const client = await getContainerRuntimeClient();
  const version = await client.container.dockerode.version();
  return (version.Components ?? []).some((c) => /podman/i.test(c.Name ?? "")) ? "podman" : "docker";
}

/** A rewardsim container: both ports mapped, started when /__sim/health answers 200. */
export class RewardsimContainer extends GenericContainer {
  constructor(image = DEFAULT_IMAGE) {
    super(image);
    this.withExposedPorts(PUBLIC_PORT, CONTROL_PORT)
      .withWaitStrategy(Wait.forHttp("/__sim/health", CONTROL_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  async start() {
    const engine = await containerEngine();
    if (engine === "docker") this.withExtraHosts([{ host: HOST_NAMES.docker, ipAddress: "host-gateway" }]);
    return new StartedRewardsimContainer(await super.start(), engine);
  }
}

/** A started rewardsim container, used like startRewardsim()'s simulator. */
export class StartedRewardsimContainer extends AbstractStartedContainer {
  #sim;

  constructor(started, engine = "docker") {
    super(started);
    /** "podman" or "docker". */
    this.engine = engine;
    // The control API answers IP-address and localhost Host headers only.
    const host = started.getHost() === "localhost" ? "127.0.0.1" : started.getHost();
    this.publicUrl = `http://${host}:${started.getMappedPort(PUBLIC_PORT)}`;
    this.controlUrl = `http://${host}:${started.getMappedPort(CONTROL_PORT)}`;
    this.#sim = new Rewardsim({ publicUrl: this.publicUrl, controlUrl: this.controlUrl });
  }

  /**
   * The URL at which the simulator in this container reaches port on the
   * host: http://host.containers.internal:PORT under podman,
   * http://host.docker.internal:PORT under docker. Give it to
   * ch.setWebhookUrl (with your service's path) for pushes to your service,
   * which must listen on 0.0.0.0 (or the host's address on the engine's
   * network), not on 127.0.0.1 alone: the container's connection comes from
   * the engine's network, and loopback refuses it.
   */
  hostUrl(port) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError(`hostUrl: port must be an integer 1-65535, got ${port}`);
    return `http://${HOST_NAMES[this.engine]}:${port}`;
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
