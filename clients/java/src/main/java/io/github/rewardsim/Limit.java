package io.github.rewardsim;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A channel's capacity limit for {@link Channel#limit(Limit)} (docs/limits.md): at most so many
 * calls in flight and so many a second (a token bucket), a call over it waiting up to a bound,
 * then refused in the endpoint's own failure shape.
 *
 * <pre>{@code
 * ch.limit(Limit.inFlight(4).rate(50).waitUpTo(Duration.ofMillis(250)));
 * }</pre>
 */
public final class Limit {
    private int inFlight;
    private double rate;
    private int burst;
    private Duration wait = Duration.ZERO;

    private Limit() {}

    /**
     * A limit of calls answered at once.
     *
     * @param n at most n of the channel's calls in flight (1 to 100000)
     * @return the limit
     */
    public static Limit inFlight(int n) {
        Limit l = new Limit();
        l.inFlight = n;
        return l;
    }

    /**
     * A limit of calls a second.
     *
     * @param perSecond at most so many calls admitted a second (a token bucket)
     * @return the limit
     */
    public static Limit perSecond(double perSecond) {
        return new Limit().rate(perSecond);
    }

    /**
     * Also at most so many calls a second.
     *
     * @param perSecond calls a second (a token bucket); 0: no bound
     * @return this limit
     */
    public Limit rate(double perSecond) {
        this.rate = perSecond;
        return this;
    }

    /**
     * The token bucket's size (default: one second's worth of the rate, at least 1).
     *
     * @param tokens calls admitted at once after a quiet spell
     * @return this limit
     */
    public Limit burst(int tokens) {
        this.burst = tokens;
        return this;
    }

    /**
     * How long a call over the limit waits for room before it is refused (default: not at all).
     *
     * @param wait at most 5 minutes
     * @return this limit
     */
    public Limit waitUpTo(Duration wait) {
        this.wait = wait == null ? Duration.ZERO : wait;
        return this;
    }

    /** The control API's body for channel ({@code POST /__sim/limits}). */
    Map<String, Object> toBody(String channel) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channel", channel);
        if (inFlight != 0) body.put("inFlight", inFlight);
        if (rate != 0) body.put("rate", rate);
        if (burst != 0) body.put("burst", burst);
        if (!wait.isZero()) body.put("wait", wait.toMillis() + "ms");
        return body;
    }
}
