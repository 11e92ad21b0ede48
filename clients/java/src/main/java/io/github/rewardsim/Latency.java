package io.github.rewardsim;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A latency profile (docs/latency.md): how long the simulator takes to answer an endpoint's
 * calls, such as {@code Latency.logNormal(Duration.ofMillis(200), Duration.ofMillis(800)).on("GetReward").max(Duration.ofSeconds(2))}.
 * Latency is simulator behaviour, not contract. Every figure is at most one minute.
 */
public final class Latency {
    private final Map<String, Object> shape;
    private String endpoint = "*";
    private Duration max;
    private long seed;

    private Latency(Map<String, Object> shape) {
        this.shape = shape;
    }

    /**
     * Every call takes d.
     *
     * @param d the delay
     * @return the profile, on every endpoint until {@link #on(String)}
     */
    public static Latency fixed(Duration d) {
        return new Latency(Map.of("fixed", go(d)));
    }

    /**
     * A delay drawn evenly between min and max.
     *
     * @param min the least delay
     * @param max the most
     * @return the profile
     */
    public static Latency uniform(Duration min, Duration max) {
        return new Latency(Map.of("uniform", Map.of("min", go(min), "max", go(max))));
    }

    /**
     * A log-normal delay with this median and 99th percentile.
     *
     * @param median the median
     * @param p99 the 99th percentile, at least the median
     * @return the profile
     */
    public static Latency logNormal(Duration median, Duration p99) {
        return new Latency(Map.of("lognormal", Map.of("median", go(median), "p99", go(p99))));
    }

    /**
     * The endpoint the profile is for.
     *
     * @param operation an operation name (GetReward, getCatalogue, ...) or "*"
     * @return this profile
     */
    public Latency on(String operation) {
        this.endpoint = operation;
        return this;
    }

    /**
     * Caps every draw.
     *
     * @param cap the most any call is held
     * @return this profile
     */
    public Latency max(Duration cap) {
        this.max = cap;
        return this;
    }

    /**
     * Seeds the profile's draws, so a run's delays are reproducible.
     *
     * @param s the seed (0: unseeded)
     * @return this profile
     */
    public Latency seed(long s) {
        this.seed = s;
        return this;
    }

    /** The control API's JSON of the profile for channel (null: every channel). */
    Map<String, Object> toProfile(String channel) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("endpoint", endpoint);
        if (channel != null) out.put("channel", channel);
        out.putAll(shape);
        if (max != null) out.put("max", go(max));
        if (seed != 0) out.put("seed", seed);
        return out;
    }

    /** A duration as Go reads it: whole milliseconds as "250ms", else nanoseconds. */
    static String go(Duration d) {
        long ns = d.toNanos();
        return ns % 1_000_000 == 0 ? (ns / 1_000_000) + "ms" : ns + "ns";
    }
}
