package io.github.rewardsim;

/**
 * A failure answer of the service (or of the control API): the HTTP status,
 * the body as the contract shapes it, and the simulator's reason
 * ({@code X-Rewardsim-Reason}).
 */
public class RewardsimException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The operation called. */
    private final String endpoint;
    /** The HTTP status. */
    private final int status;
    private final transient Object body;
    /** X-Rewardsim-Reason, or null. */
    private final String reason;
    /** X-Rewardsim-Seq, or null. */
    private final Long seq;

    /**
     * A failure answer, its message made of them.
     *
     * @param endpoint the operation called
     * @param status the HTTP status
     * @param body the decoded body
     * @param reason X-Rewardsim-Reason, or null
     * @param seq X-Rewardsim-Seq, or null
     */
    public RewardsimException(String endpoint, int status, Object body, String reason, Long seq) {
        this(endpoint, status, body, reason, seq, null);
    }

    /**
     * A failure answer with a message of its own.
     *
     * @param endpoint the operation called
     * @param status the HTTP status
     * @param body the decoded body
     * @param reason X-Rewardsim-Reason, or null
     * @param seq X-Rewardsim-Seq, or null
     * @param message the message; null: made of the others
     */
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

    /**
     * The operation called, such as {@code fetchCouponCode}.
     *
     * @return the operation called, such as {@code fetchCouponCode}
     */
    public String endpoint() { return endpoint; }

    /**
     * The HTTP status.
     *
     * @return the HTTP status
     */
    public int status() { return status; }

    /**
     * The decoded body: a {@code Map} for a JSON answer, else the text.
     *
     * @return a {@code Map} for a JSON answer, else the text
     */
    public Object body() { return body; }

    /**
     * {@code X-Rewardsim-Reason}: the simulator's precise cause, or null.
     *
     * @return the simulator's precise cause, or null
     */
    public String reason() { return reason; }

    /**
     * {@code X-Rewardsim-Seq} of the answer, or null.
     *
     * @return {@code X-Rewardsim-Seq} of the answer, or null
     */
    public Long seq() { return seq; }

    /**
     * ERRORSTRING of a bare failure {@code {STATUS, ERRORSTRING}}, or null.
     *
     * @return the ERRORSTRING, or null
     */
    public String errorString() { return field("ERRORSTRING"); }

    /**
     * errorCode of a coupon-host error, or null.
     *
     * @return errorCode of a coupon-host error, or null
     */
    public String errorCode() { return field("errorCode"); }

    private String field(String name) {
        return body instanceof java.util.Map<?, ?> m && m.get(name) instanceof String v ? v : null;
    }
}
