package io.github.rewardsim;

import java.util.List;

/**
 * A behaviour switch of the simulator (docs/scenarios.md#behaviour-switches), with the values it
 * takes: {@link RewardsimServer#setSwitch(Switch, String, String)} and
 * {@link Channel#setSwitch(Switch, String)} set one without a scenario file.
 *
 * <pre>{@code
 * ch.setSwitch(Switch.COUPONS_DUPLICATE, "reject");
 * }</pre>
 */
public enum Switch {
    // switches: drawn from the simulator's switch table (go test ./docs -run TestDocs_switchSurfaces -update)
    /** HTTP status of a bare {STATUS, ERRORSTRING} failure caused by the request (ENV-6). */
    FAILURE_HTTP_STATUS("failureHttpStatus", "200", "200, 400", "200", "400"),
    /** unknown CHANNELID: Signature Mismatch!, or Invalid Request! unknown CHANNELID "X" (ENV-6). */
    UNKNOWN_CHANNEL("unknownChannel", "signature-mismatch", "signature-mismatch, describe", "signature-mismatch", "describe"),
    /** format of expireDate (TOK-4). */
    TOKENS_EXPIRE_DATE_FORMAT("tokens.expireDateFormat", "datetime-ms", "datetime-ms, iso8601, epoch-ms", "datetime-ms", "iso8601", "epoch-ms"),
    /** reference token lifetime (TOK-4). */
    TOKENS_REFERENCE_TTL("tokens.referenceTTL", "1h", "a positive duration such as 30s, 30m or 1h"),
    /** user token lifetime (TOK-4). */
    TOKENS_USER_TTL("tokens.userTTL", "30m", "a positive duration such as 30s, 30m or 1h"),
    /** session lifetime (0: never expires). */
    SESSIONS_TTL("sessions.ttl", "0", "0 or a duration such as 30s, 30m or 1h"),
    /** GetReward without amount refused (GR-5). */
    CARDS_AMOUNT_REQUIRED("cards.amountRequired", "false", "false, true", "false", "true"),
    /** a dateandtime not DDMMYYYYHHMMSS (GR-6). */
    CARDS_DATEANDTIME("cards.dateandtime", "reject", "reject, now, accept", "reject", "now", "accept"),
    /** additionalParams as a nested object (GR-7). */
    CARDS_NESTED_ADDITIONAL_PARAMS("cards.nestedAdditionalParams", "reject", "reject, accept", "reject", "accept"),
    /** GetReward channelName other than the token's channel. */
    CARDS_CHANNEL_MISMATCH("cards.channelMismatch", "refuse", "refuse, use-token", "refuse", "use-token"),
    /** HTTP status of a malformed GetReward or listing request. */
    CARDS_INVALID_REQUEST_STATUS("cards.invalidRequestStatus", "400", "400, 200", "400", "200"),
    /** second reveal: a bare failure, or a signed {status false, isAlreadyRewarded true} (REV-2). */
    CARDS_SECOND_REVEAL("cards.secondReveal", "failure", "failure, status-false", "failure", "status-false"),
    /** FetchRewardInfo needs SIGN (REV-5). */
    CARDS_FETCH_SIGN_REQUIRED("cards.fetchSignRequired", "true", "true, false", "true", "false"),
    /** FetchRewardInfo's answer is signed (REV-5). */
    CARDS_FETCH_ANSWER_SIGNED("cards.fetchAnswerSigned", "true", "true, false", "true", "false"),
    /** listing limit when none is sent (LIST-1). */
    CARDS_LIST_DEFAULT_LIMIT("cards.listDefaultLimit", "10", "an integer from 1 to 1000"),
    /** largest listing limit (LIST-1). */
    CARDS_LIST_MAX_LIMIT("cards.listMaxLimit", "50", "an integer from 1 to 1000"),
    /** bad page/limit: HTTP 400, or corrected (LIST-1). */
    CARDS_LIST_BAD_VALUES("cards.listBadValues", "reject", "reject, clamp", "reject", "clamp"),
    /** GetScratchCardForBank amount unit; tiers are thresholds (BANK-2). */
    CARDS_BANK_AMOUNT_UNIT("cards.bankAmountUnit", "rupees", "rupees, paisa", "rupees", "paisa"),
    /** resent extTransactionId: the original card or a new one (BANK-3). */
    CARDS_BANK_RESEND("cards.bankResend", "original", "original, new", "original", "new"),
    /** not-eligible answer signed or a bare body (BANK-4). */
    CARDS_BANK_NOT_ELIGIBLE("cards.bankNotEligible", "signed", "signed, bare", "signed", "bare"),
    /** HTTP 200 always, or the HTTP status mirrors the body status (CPN-3). */
    COUPONS_HTTP_STATUS("coupons.httpStatus", "body", "body, mirror", "body", "mirror"),
    /** a duplicate extTransactionId: the earlier result, or 409 DUPLICATE_TRANSACTION (CPN-5). */
    COUPONS_DUPLICATE("coupons.duplicate", "original", "original, reject", "original", "reject"),
    /** the same extTransactionId on another offer (CPN-5). */
    COUPONS_CROSS_OFFER("coupons.crossOffer", "reject", "reject, new, first", "reject", "new", "first"),
    /** data.orderId in the success answer (CPN-7). */
    COUPONS_ORDER_ID("coupons.orderId", "false", "false, true", "false", "true"),
    /** coinsUsed sent as a JSON number. */
    COUPONS_COINS_AS_NUMBER("coupons.coinsAsNumber", "refuse", "refuse, accept", "refuse", "accept"),
    /** coinsUsed different from the offer's price. */
    COUPONS_COINS_MISMATCH("coupons.coinsMismatch", "accept", "accept, refuse", "accept", "refuse"),
    /** retry policy of coupon-status pushes (WH-2). */
    WEBHOOK_RETRY("webhook.retry", "exponential", "exponential, none, fixed", "exponential", "none", "fixed"),
    /** wait before the first retry of a push (WH-2). */
    WEBHOOK_INTERVAL("webhook.interval", "30s", "a positive duration such as 30s, 30m or 1h"),
    /** attempts of a push in all, the first included (WH-2). */
    WEBHOOK_MAX_ATTEMPTS("webhook.maxAttempts", "4", "an integer from 1 to 20"),
    /** how long the receiver has to answer a push (0: the simulator's --webhook-deadline) (WH-2). */
    WEBHOOK_DEADLINE("webhook.deadline", "0", "a duration such as 30s or 2m, at most 1m0s"),
    /** SDK issuance with an empty sessionId (SDK-1). */
    SDK_EMPTY_SESSION_ID("sdk.emptySessionId", "refuse", "refuse, accept", "refuse", "accept"),
    /** a reveal that wins nothing goes through the reveal callbacks (SDK-3). */
    SDK_MISS_CALLBACK("sdk.missCallback", "deliver", "deliver, skip", "deliver", "skip"),
    /** HTTP status of a call refused by its channel's limit, its body the endpoint's platform failure (docs/limits.md). */
    LIMITS_STATUS("limits.status", "503", "503, 429, 200", "503", "429", "200"),
    /** a call refused by its channel's limit says Retry-After, in whole seconds (docs/limits.md). */
    LIMITS_RETRY_AFTER("limits.retryAfter", "true", "true, false", "true", "false");
    // end of switches

    private final String switchName;
    private final String defaultValue;
    private final String allowed;
    private final List<String> values;

    Switch(String switchName, String defaultValue, String allowed, String... values) {
        this.switchName = switchName;
        this.defaultValue = defaultValue;
        this.allowed = allowed;
        this.values = List.of(values);
    }

    /** @return the switch's name as the control API takes it ({@code coupons.duplicate}) */
    public String switchName() { return switchName; }

    /** @return the value of a scenario that says nothing */
    public String defaultValue() { return defaultValue; }

    /** @return the values it takes; empty for a free integer or duration (see {@link #allowed()}) */
    public List<String> allowedValues() { return values; }

    /** @return what it takes, in words */
    public String allowed() { return allowed; }

    /**
     * Refuses, before any call, a value the switch does not list.
     *
     * @param value the value
     * @return value
     * @throws IllegalArgumentException naming the values it takes
     */
    String check(String value) {
        if (!values.isEmpty() && !values.contains(value)) {
            throw new IllegalArgumentException("switch " + switchName + ": \"" + value + "\" is not allowed; it takes " + allowed);
        }
        return value;
    }
}
