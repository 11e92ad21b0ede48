package io.github.rewardsim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's image of {@code make image} run in a container engine, podman or docker,
 * through the engine's own command line (no Testcontainers needed): both ports published on
 * 127.0.0.1, returned once {@code GET /__sim/health} answers. {@link #server()} is the simulator,
 * used like a started one; {@link #hostUrl(int)} is where the container reaches a service of yours
 * on this machine (its webhook URL). {@link #close()} removes the container; a JVM that ends
 * without closing it removes it too (a shutdown hook), but one killed with {@code kill -9} leaves
 * it running: remove it with {@code podman rm -f $(podman ps -aq --filter label=io.github.rewardsim)}
 * (or {@code docker}).
 */
public final class RewardsimContainer implements AutoCloseable {
    /** The host's name in a podman container: podman writes it into every container's /etc/hosts. */
    public static final String PODMAN_HOST = "host.containers.internal";
    /** The host's name in a docker container: Docker Desktop has it; on Linux {@link #start(String)} adds it. */
    public static final String DOCKER_HOST = "host.docker.internal";

    private static final int PUBLIC_PORT = 8080;
    private static final int CONTROL_PORT = 8090;

    private final String cli;
    private final String engine;
    private final String id;
    private final RewardsimServer server;
    private final Thread remover;

    private RewardsimContainer(String cli, String engine, String id, RewardsimServer server, Thread remover) {
        this.cli = cli;
        this.engine = engine;
        this.id = id;
        this.server = server;
        this.remover = remover;
    }

    /**
     * Starts {@code REWARDSIM_IMAGE} (or {@code -Drewardsim.image}), else {@code rewardsim:latest}.
     *
     * @return the started container
     */
    public static RewardsimContainer start() {
        String image = Binary.setting("rewardsim.image", "REWARDSIM_IMAGE");
        return start(image == null || image.isEmpty() ? "rewardsim:latest" : image);
    }

    /**
     * Starts image with the engine's command line: {@code REWARDSIM_CONTAINER_ENGINE} (or
     * {@code -Drewardsim.containerEngine}) names it, else {@code docker} on PATH, else
     * {@code podman}. Under docker the container also gets
     * {@code --add-host host.docker.internal:host-gateway}, which Docker Engine on Linux needs for
     * {@link #hostUrl(int)}.
     *
     * @param image the image, e.g. {@code rewardsim:latest}
     * @return the started container, its simulator answering
     */
    public static RewardsimContainer start(String image) {
        String cli = engineCommand();
        String engine = engineOf(cli);
        List<String> run = new ArrayList<>(List.of(cli, "run", "-d", "--rm", "--label", "io.github.rewardsim=container",
                "-p", "127.0.0.1::" + PUBLIC_PORT, "-p", "127.0.0.1::" + CONTROL_PORT));
        if (engine.equals("docker")) run.addAll(List.of("--add-host", DOCKER_HOST + ":host-gateway"));
        run.add(image);
        String out = exec(run, Duration.ofMinutes(2)).strip();
        String id = out.substring(out.lastIndexOf('\n') + 1).strip();
        Thread remover = new Thread(() -> remove(cli, id), "rewardsim-container-remover");
        Runtime.getRuntime().addShutdownHook(remover);
        try {
            String publicUrl = "http://" + published(cli, id, PUBLIC_PORT);
            String controlUrl = "http://" + published(cli, id, CONTROL_PORT);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    return new RewardsimContainer(cli, engine, id, RewardsimServer.attach(publicUrl, controlUrl), remover);
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the rewardsim container " + id + " (" + image + ", " + engine
                                + ") did not answer GET " + controlUrl + "/__sim/health within 60 s: " + e.getMessage(), e);
                    }
                    Thread.sleep(200);
                }
            }
        } catch (RuntimeException | InterruptedException e) {
            remove(cli, id);
            Runtime.getRuntime().removeShutdownHook(remover);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the rewardsim container started", e);
            }
            throw (RuntimeException) e;
        }
    }

    /**
     * The URL at which a simulator in a container of engine reaches port on the host:
     * {@code http://host.containers.internal:PORT} under podman, {@code http://host.docker.internal:PORT}
     * under docker. The service there must listen on 0.0.0.0 (or the host's address on the
     * engine's network), not on 127.0.0.1 alone: the container's connection comes from the
     * engine's network, and loopback refuses it.
     *
     * @param engine {@code podman} or {@code docker}
     * @param port the port your service listens on
     * @return the base URL, without a path
     */
    public static String hostUrl(String engine, int port) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("hostUrl: port must be 1-65535, got " + port);
        return switch (engine) {
            case "podman" -> "http://" + PODMAN_HOST + ":" + port;
            case "docker" -> "http://" + DOCKER_HOST + ":" + port;
            default -> throw new IllegalArgumentException("hostUrl: engine must be podman or docker, got " + engine);
        };
    }

    /**
     * This container's {@link #hostUrl(String, int)}: give it, with your service's path, to
     * {@link Channel#setWebhookUrl(String)}.
     *
     * @param port the port your service listens on (on 0.0.0.0)
     * @return the base URL, without a path
     */
    public String hostUrl(int port) {
        return hostUrl(engine, port);
    }

    /** @return {@code podman} or {@code docker}: the engine behind the command line, as it names itself */
    public String engine() { return engine; }

    /** @return the container's id */
    public String id() { return id; }

    /** @return the simulator in the container (attached: its close() stops nothing) */
    public RewardsimServer server() { return server; }

    /** @return the public URL, on 127.0.0.1 */
    public String publicUrl() { return server.publicUrl(); }

    /** @return the control API's URL, on 127.0.0.1 */
    public String controlUrl() { return server.controlUrl(); }

    /**
     * A fresh channel like DEMOBANK; see {@link RewardsimServer#newChannel()}.
     *
     * @return the channel
     */
    public Channel newChannel() { return server.newChannel(); }

    /** Closes the simulator's channels and removes the container. */
    @Override
    public void close() {
        server.close();
        remove(cli, id);
        try {
            Runtime.getRuntime().removeShutdownHook(remover);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or ran: the container goes anyway
        }
    }

    private static void remove(String cli, String id) {
        try {
            exec(List.of(cli, "rm", "-f", id), Duration.ofSeconds(30));
        } catch (RuntimeException ignored) {
            // gone already, or the engine is: nothing left to remove here
        }
    }

    // The engine's command: the setting, else docker, else podman, on PATH.
    private static String engineCommand() {
        String set = Binary.setting("rewardsim.containerEngine", "REWARDSIM_CONTAINER_ENGINE");
        if (set != null && !set.isEmpty()) return set;
        for (String name : List.of("docker", "podman")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) return name;
            }
        }
        throw new IllegalStateException("no container engine: neither docker nor podman is on PATH (or set REWARDSIM_CONTAINER_ENGINE)");
    }

    // podman, or docker's command line talking to a podman service (which names itself
    // "Podman Engine" among the server's components), is podman; anything else is docker.
    private static String engineOf(String cli) {
        if (Path.of(cli).getFileName().toString().startsWith("podman")) return "podman";
        String components = exec(List.of(cli, "version", "--format", "{{range .Server.Components}}{{.Name}};{{end}}"), Duration.ofSeconds(30));
        return components.toLowerCase(java.util.Locale.ROOT).contains("podman") ? "podman" : "docker";
    }

    // host:port that containerPort is published on, on 127.0.0.1.
    private static String published(String cli, String id, int containerPort) {
        String out = exec(List.of(cli, "port", id, containerPort + "/tcp"), Duration.ofSeconds(30));
        for (String line : out.split("\n")) {
            String s = line.strip();
            if (s.startsWith("127.0.0.1:")) return s;
        }
        throw new IllegalStateException("the rewardsim container " + id + " published port " + containerPort + " on no 127.0.0.1 address: " + out);
    }

    // Runs a command of the engine; its output, or an exception with what it said.
    private static String exec(List<String> command, Duration timeout) {
        try {
            Path out = Files.createTempFile("rewardsim-engine-", ".out");
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                p.getOutputStream().close();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor();
                    throw new IllegalStateException(String.join(" ", command) + ": no answer within " + timeout.toSeconds() + " s");
                }
                String text = Files.readString(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + ": exit status " + p.exitValue() + ": " + text.strip());
                }
                return text;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", command) + ": interrupted", e);
        }
    }

    /** @return this container's engine, id and URLs */
    @Override
    public String toString() {
        return "RewardsimContainer" + Map.of("engine", engine, "id", id, "publicUrl", publicUrl(), "controlUrl", controlUrl());
    }
}
