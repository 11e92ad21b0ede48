package io.github.rewardsim;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A typed fault rule for {@link Channel#fault(Fault)}: a kind of failure, the endpoint it shows
 * on and how often. The simulator refuses a kind the endpoint cannot show, naming the ones it can.
 *
 * <pre>{@code
 * ch.fault(Fault.couponError("COUPON_EXHAUSTED").on("fetchCouponCode").times(1));
 * }</pre>
 */
public final class Fault {
    // The coupon host's error codes a couponError(String) shows (CPN-3), as the simulator's
    // schema lists them: TestLibraryFaultKinds (sim/internal/fault) checks these against it.

    /** A request the coupon host cannot read. */
    public static final String INVALID_REQUEST = "INVALID_REQUEST";
    /** The app key is wrong. */
    public static final String UNAUTHORIZED = "UNAUTHORIZED";
    /** The user may not claim the offer. */
    public static final String NON_ELIGIBLE = "NON_ELIGIBLE";
    /** No such offer, or it is closed. */
    public static final String INVALID_OFFER = "INVALID_OFFER";
    /** The offer's stock is out. */
    public static final String COUPON_EXHAUSTED = "COUPON_EXHAUSTED";
    /** A claim id used before. */
    public static final String DUPLICATE_TRANSACTION = "DUPLICATE_TRANSACTION";
    /** The per-user limit of an offer. */
    public static final String MAX_LIMIT_REACHED = "MAX_LIMIT_REACHED";
    /** The coupon host's platform failure. */
    public static final String INTERNAL_ERROR = "INTERNAL_ERROR";

    private final Map<String, Object> action = new LinkedHashMap<>();
    private String endpoint = "*";
    private String virtualId;
    private String id;
    private Integer times;
    private Integer nth;
    private Double probability;
    private Long seed;

    private Fault(String kind) {
        action.put("kind", kind);
    }

    /** @return the endpoint's platform failure ({@code Internal Error!} on signed endpoints, 500 elsewhere) */
    public static Fault internalError() { return new Fault("internal-error"); }

    /** @return {@code Signature Mismatch!} (signed endpoints), 401 (coupon host, bearer endpoints) */
    public static Fault signatureMismatch() { return new Fault("signature-mismatch"); }

    /** @return the normal not-eligible answer */
    public static Fault notEligible() { return new Fault("not-eligible"); }

    /**
     * A coupon-host error.
     *
     * @param errorCode such as {@link #COUPON_EXHAUSTED} or {@link #MAX_LIMIT_REACHED}
     * @return the rule
     */
    public static Fault couponError(String errorCode) {
        Fault f = new Fault("coupon-error");
        f.action.put("errorCode", errorCode);
        return f;
    }

    /**
     * A bare HTTP status.
     *
     * @param status such as 401 or 503
     * @return the rule
     */
    public static Fault httpStatus(int status) {
        Fault f = new Fault("http-status");
        f.action.put("status", status);
        return f;
    }

    /**
     * The normal answer, late.
     *
     * @param by how late
     * @return the rule
     */
    public static Fault delay(Duration by) {
        Fault f = new Fault("delay");
        f.action.put("delay", by.toMillis() + "ms");
        return f;
    }

    /** @return the connection closed unanswered */
    public static Fault dropConnection() { return new Fault("drop-connection"); }

    /** @return HTTP 200 with a body cut mid-JSON */
    public static Fault malformedBody() { return new Fault("malformed-body"); }

    /** @return fetchCouponCode commits the claim, then closes the connection unanswered */
    public static Fault commitThenDrop() { return new Fault("commit-then-drop").on("fetchCouponCode"); }

    /**
     * fetchCouponCode commits the claim, then answers late.
     *
     * @param by how late
     * @return the rule
     */
    public static Fault commitThenDelay(Duration by) {
        Fault f = new Fault("commit-then-delay").on("fetchCouponCode");
        f.action.put("delay", by.toMillis() + "ms");
        return f;
    }

    /** @return a signed endpoint's normal answer, its SIGN made over the decoded JSON instead of the BDATA string */
    public static Fault answerSignOtherBytes() { return new Fault("answer-sign-other-bytes"); }

    /** @return a signed endpoint's normal answer, its SIGN made by a key that is not the service's */
    public static Fault answerSignOtherKey() { return new Fault("answer-sign-other-key"); }

    /** @return a signed endpoint's normal answer with no SIGN */
    public static Fault answerSignAbsent() { return new Fault("answer-sign-absent"); }

    /**
     * The injected answer's text where its shape has one (the coupon host's message, the signed
     * family's ERRORSTRING, the bearer 401's message); unset, the text the real outcome carries.
     *
     * @param text the text, 1 to 500 characters
     * @return this rule
     */
    public Fault message(String text) {
        action.put("message", text);
        return this;
    }

    /**
     * The endpoint (the journal's operation name, such as {@code fetchCouponCode}); every one by default.
     *
     * @param endpoint the operation name
     * @return this rule
     */
    public Fault on(String endpoint) {
        this.endpoint = endpoint;
        return this;
    }

    /**
     * Only for this user.
     *
     * @param virtualId the user
     * @return this rule
     */
    public Fault forVirtualId(String virtualId) {
        this.virtualId = virtualId;
        return this;
    }

    /**
     * Fires on the next n matching calls only (1: one-shot); standing when not set.
     *
     * @param n how many times
     * @return this rule
     */
    public Fault times(int n) {
        this.times = n;
        return this;
    }

    /**
     * Fires on the nth matching call only.
     *
     * @param n which call, from 1
     * @return this rule
     */
    public Fault nth(int n) {
        this.nth = n;
        return this;
    }

    /**
     * Fires with probability p, drawn from a source seeded by seed (reproducible).
     *
     * @param p from 0 to 1
     * @param seed the seed
     * @return this rule
     */
    public Fault probability(double p, long seed) {
        this.probability = p;
        this.seed = seed;
        return this;
    }

    /**
     * The rule's id (generated by the simulator when not set).
     *
     * @param id the id
     * @return this rule
     */
    public Fault id(String id) {
        this.id = id;
        return this;
    }

    /**
     * The rule as the control API takes it.
     *
     * @param channel the channel it is for
     * @return the JSON object
     */
    public Map<String, Object> toRule(String channel) {
        Map<String, Object> r = new LinkedHashMap<>();
        if (id != null) r.put("id", id);
        r.put("endpoint", endpoint);
        r.put("channel", channel);
        if (virtualId != null) r.put("virtualId", virtualId);
        if (nth != null) r.put("nth", nth);
        if (times != null) r.put("times", times);
        if (probability != null) {
            r.put("probability", probability);
            r.put("seed", seed);
        }
        r.put("action", new LinkedHashMap<>(action));
        return r;
    }

    @Override
    public String toString() {
        return Json.write(toRule(null));
    }
}
