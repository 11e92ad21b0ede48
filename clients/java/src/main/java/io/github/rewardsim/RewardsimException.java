package io.github.rewardsim;

/**
 * A failure answer of the service (or of the control API): the HTTP status,
 * the body as the contract shapes it, and the simulator's reason
 * ({@code X-Rewardsim-Reason}).
 */
public class RewardsimException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String endpoint;
    private final int status;
    private final transient Object body;
    private final String reason;
    private final Long seq;

    public RewardsimException(String endpoint, int status, Object body, String reason, Long seq) {
        this(endpoint, status, body, reason, seq, null);
    }

    public RewardsimException(String endpoint, int status, Object body, String reason, Long seq, String message) {
        super(message != null ? message
                : endpoint + ": HTTP " + status + " " + Json.abbreviate(body instanceof String str ? str : Json.write(body))
                        + (reason != null ? " (reason: " + reason + ")" : ""));
        this.endpoint = endpoint;
        this.status = status;
        this.body = body;
        this.reason = reason;
        this.seq = seq;
    }

    /** The operation called, such as {@code fetchCouponCode}. */
    public String endpoint() { return endpoint; }

    /** The HTTP status. */
    public int status() { return status; }

    /** The decoded body: a {@code Map} for a JSON answer, else the text. */
    public Object body() { return body; }

    /** {@code X-Rewardsim-Reason}: the simulator's precise cause, or null. */
    public String reason() { return reason; }

    /** {@code X-Rewardsim-Seq} of the answer, or null. */
    public Long seq() { return seq; }

    /** ERRORSTRING of a bare failure {@code {STATUS, ERRORSTRING}}, or null. */
    public String errorString() { return field("ERRORSTRING"); }

    /** errorCode of a coupon-host error, or null. */
    public String errorCode() { return field("errorCode"); }

    private String field(String name) {
        return body instanceof java.util.Map<?, ?> m && m.get(name) instanceof String v ? v : null;
    }
}
