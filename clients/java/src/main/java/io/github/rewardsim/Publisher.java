package io.github.rewardsim;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A channel's publisher: every envelope signed with the channel's key, every
 * signed answer verified with the service certificate, every failure answer
 * (a bare {@code {STATUS, ERRORSTRING}}, an HTTP error, a coupon error, a
 * status false) thrown as a {@link RewardsimException} carrying the body and
 * {@code X-Rewardsim-Reason}. Each call returns the decoded answer.
 */
public final class Publisher {
    private static final ZoneOffset IST = ZoneOffset.ofHoursMinutes(5, 30);
    private static final DateTimeFormatter DATEANDTIME = DateTimeFormatter.ofPattern("ddMMyyyyHHmmss");
    private static final DateTimeFormatter BANK_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final Channel channel;
    private final PrivateKey key;
    private final PublicKey serviceKey;
    private final String appKey;
    private final String secKey;
    private volatile Long lastSeq;

    Publisher(Channel channel, PrivateKey key, PublicKey serviceKey, String appKey, String secKey) {
        this.channel = channel;
        this.key = key;
        this.serviceKey = serviceKey;
        this.appKey = appKey;
        this.secKey = secKey;
    }

    /**
     * X-Rewardsim-Seq of the last answer (a watermark for verify's since), or null.
     *
     * @return the sequence, or null
     */
    public Long lastSeq() { return lastSeq; }

    /**
     * The coupon host's credentials: {@code ServiceAppKey appKey:secKey}.
     *
     * @return the appKey
     */
    public String appKey() { return appKey; }

    /**
     * The coupon host's secret key.
     *
     * @return the secKey
     */
    public String secKey() { return secKey; }

    /**
     * getSecuredReferenceToken: the referenceKey.
     *
     * @return the referenceKey
     */
    public String referenceToken() {
        return (String) signed("getSecuredReferenceToken", rewards("/api/getSecuredReferenceToken"), obj("bName", name()), null).get("referenceKey");
    }

    /**
     * GetReward for a UPI payment, with a fresh reference token: {status, message, rewards, ...}.
     *
     * @param virtualId the user
     * @param extTransactionId the publisher's transaction id
     * @param amount the payment amount
     * @return {status, message, rewards, ...}
     */
    public Map<String, Object> getReward(String virtualId, String extTransactionId, double amount) {
        return getReward(obj("virtualId", virtualId, "triggerEventType", "UPI", "extTransactionId", extTransactionId, "amount", amount));
    }

    /**
     * GetReward with a body of your own (channelName and dateandtime filled in when absent), with a fresh reference token.
     *
     * @param body the request body (null: none)
     * @return {status, message, rewards, ...}
     */
    public Map<String, Object> getReward(Map<String, ?> body) {
        Map<String, Object> b = obj("channelName", name());
        b.putAll(body);
        b.putIfAbsent("dateandtime", ZonedDateTime.now(IST).format(DATEANDTIME));
        String token = referenceToken();
        return plain(send("GetReward", post(rewards("/api/GetReward"), b).header("Authorization", "Bearer " + token)));
    }

    /**
     * GetAuthToken: the user token of virtualId.
     *
     * @param virtualId the user
     * @return the user token of virtualId
     */
    public String userToken(String virtualId) {
        return (String) signed("GetAuthToken", rewards("/api/GetAuthToken"), obj("channelName", name(), "virtualId", virtualId), null).get("token");
    }

    /**
     * GetAllScratchCardsByUserId: the user's cards (rewards[]).
     *
     * @param userToken the user token of GetAuthToken
     * @return the user's cards (rewards[])
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> cards(String userToken) {
        HttpRequest.Builder b = server().request(rewards("/api/GetAllScratchCardsByUserId")).GET().header("Authorization", "Bearer " + userToken);
        return (List<Map<String, Object>>) plain(send("GetAllScratchCardsByUserId", b)).get("rewards");
    }

    /**
     * FetchRewardInfo: reveals a card; the verified BDATA.
     *
     * @param userToken the user token of GetAuthToken
     * @param virtualId the user
     * @param rewardId the card
     * @return the verified BDATA
     */
    public Map<String, Object> reveal(String userToken, String virtualId, String rewardId) {
        return signed("FetchRewardInfo", rewards("/api/FetchRewardInfo"), obj("channelName", name(), "rewardId", rewardId, "virtualId", virtualId), userToken);
    }

    /**
     * GenerateSessionInfoV2: a bank session id.
     *
     * @param virtualId the user
     * @return a bank session id
     */
    public String sessionId(String virtualId) {
        return (String) signed("GenerateSessionInfoV2", url("/api/GenerateSessionInfoV2"), obj("bName", name(), "virtualId", virtualId), null).get("sessionId");
    }

    /**
     * GetScratchCardForBank on campaign CAMP-DEMO for 500.00, MCC 5411.
     *
     * @param virtualId the user
     * @param extTransactionId the publisher's transaction id
     * @return {status, message, deepLink, banner}
     */
    public Map<String, Object> bankCard(String virtualId, String extTransactionId) {
        return bankCard(virtualId, extTransactionId, "500.00", "CAMP-DEMO");
    }

    /**
     * GetScratchCardForBank: {status, message, deepLink, banner}.
     *
     * @param virtualId the user
     * @param extTransactionId the publisher's transaction id
     * @param amount the payment amount
     * @param campaignId the campaign
     * @return {status, message, deepLink, banner}
     */
    public Map<String, Object> bankCard(String virtualId, String extTransactionId, String amount, String campaignId) {
        return signed("GetScratchCardForBank", url("/api/GetScratchCardForBank"), obj("virtualId", virtualId,
                "transDateAndTime", ZonedDateTime.now(IST).format(BANK_TIME), "amount", amount, "mcc", "5411",
                "extTransactionId", extTransactionId, "campaignId", campaignId, "deviceToken", "rewardsim-java"), null);
    }

    /**
     * fetchCouponCode: the delivered coupon (data).
     *
     * @param offerId the offer
     * @param virtualId the user
     * @param extTransactionId the publisher's transaction id
     * @param coinsUsed the coins burnt
     * @return the delivered coupon (data)
     */
    public Map<String, Object> fetchCoupon(String offerId, String virtualId, String extTransactionId, int coinsUsed) {
        return coupon("fetchCouponCode", obj("offerId", offerId, "virtualId", virtualId, "channelName", name(),
                "extTransactionId", extTransactionId, "coinsUsed", Integer.toString(coinsUsed)));
    }

    /**
     * getUserCoupons: the user's coupons of every offer.
     *
     * @param virtualId the user
     * @return the user's coupons of every offer
     */
    public List<Map<String, Object>> userCoupons(String virtualId) {
        return userCoupons(virtualId, null);
    }

    /**
     * getUserCoupons: the user's coupons of one offer (null: every offer).
     *
     * @param virtualId the user
     * @param offerId the offer
     * @return the user's coupons of one offer (null: every offer)
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> userCoupons(String virtualId, String offerId) {
        Map<String, Object> body = obj("virtualId", virtualId, "channelName", name());
        if (offerId != null) body.put("offerId", offerId);
        return (List<Map<String, Object>>) coupon("getUserCoupons", body).get("coupons");
    }

    /**
     * getCatalogue: the channel's offers.
     *
     * @return the channel's offers
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> catalogue() {
        return (List<Map<String, Object>>) coupon("getCatalogue", obj("channelName", name())).get("offers");
    }

    /**
     * The envelope {CHANNELID, SIGN, BDATA} of payload: SIGN is SHA256withRSA over the BDATA string.
     *
     * @param payload the request
     * @return the envelope
     */
    public Map<String, Object> seal(Map<String, ?> payload) {
        String bdata = Base64.getEncoder().encodeToString(Json.write(payload).getBytes(StandardCharsets.UTF_8));
        try {
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(key);
            s.update(bdata.getBytes(StandardCharsets.US_ASCII));
            return obj("CHANNELID", name(), "SIGN", Base64.getEncoder().encodeToString(s.sign()), "BDATA", bdata);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private String name() { return channel.name(); }

    private RewardsimServer server() { return channel.server(); }

    private String url(String path) { return server().publicUrl() + path; }

    private String rewards(String path) { return url(path); }

    private HttpRequest.Builder post(String url, Object body) {
        return server().request(url).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    }

    private RewardsimServer.Answer send(String endpoint, HttpRequest.Builder b) {
        RewardsimServer.Answer a = server().send(endpoint, b.build());
        if (a.seq() != null) lastSeq = a.seq();
        return a;
    }

    // A signed endpoint's answer: the bare failure shape first, then the
    // signature, then the decoded BDATA (status false is a failure too).
    @SuppressWarnings("unchecked")
    private Map<String, Object> signed(String endpoint, String url, Map<String, Object> payload, String bearer) {
        HttpRequest.Builder b = post(url, seal(payload));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        RewardsimServer.Answer a = send(endpoint, b);
        if (a.status() >= 400 || !(a.json() instanceof Map<?, ?> env) || env.containsKey("STATUS") || !(env.get("BDATA") instanceof String bdata)) {
            throw a.failure(null);
        }
        boolean ok;
        try {
            Signature v = Signature.getInstance("SHA256withRSA");
            v.initVerify(serviceKey);
            v.update(bdata.getBytes(StandardCharsets.US_ASCII));
            ok = env.get("SIGN") instanceof String sign && v.verify(Base64.getDecoder().decode(sign));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            ok = false;
        }
        if (!ok) throw a.failure(endpoint + ": the answer's SIGN does not verify with the service certificate");
        Map<String, Object> data = Json.parseObject(new String(Base64.getDecoder().decode(bdata), StandardCharsets.UTF_8));
        if (Boolean.FALSE.equals(data.get("status"))) throw new RewardsimException(endpoint, a.status(), data, a.reason(), a.seq());
        return data;
    }

    // A plain JSON answer of the rewards host: an HTTP error or status false fails.
    @SuppressWarnings("unchecked")
    private Map<String, Object> plain(RewardsimServer.Answer a) {
        if (a.status() >= 400 || !(a.json() instanceof Map<?, ?> m) || Boolean.FALSE.equals(m.get("status"))) throw a.failure(null);
        return (Map<String, Object>) m;
    }

    // A coupon-host answer: its body status must be 200.
    @SuppressWarnings("unchecked")
    private Map<String, Object> coupon(String endpoint, Map<String, Object> body) {
        HttpRequest.Builder b = post(url("/api/" + endpoint), body)
                .header("Authorization", "ServiceAppKey " + appKey + ":" + secKey).header("X-CHANNELID", name());
        RewardsimServer.Answer a = send(endpoint, b);
        if (!(a.json() instanceof Map<?, ?> m) || !(m.get("status") instanceof Number st) || st.intValue() != 200) throw a.failure(null);
        return m.get("data") instanceof Map<?, ?> d ? (Map<String, Object>) d : Map.of();
    }

    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }
}
