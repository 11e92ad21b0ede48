package rewards.service;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The partner's three hosts as this service calls them: signed envelopes (SHA256withRSA over
 * BDATA, answers verified with the service certificate), bearer calls, and the coupon host's
 * ServiceAppKey calls. A failure answer is a {@link PartnerException}; a timeout or a dropped
 * connection is an {@link IOException}.
 */
final class PartnerClient {
    private final PartnerConfig cfg;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    PartnerClient(PartnerConfig cfg) {
        this.cfg = cfg;
    }

    /** A failure the partner answered: HTTP status, error code (or ERRORSTRING), body. */
    static final class PartnerException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;

        PartnerException(int status, String code, String body) {
            super("partner answered " + status + " " + code + ": " + body);
            this.status = status;
            this.code = code;
        }
    }

    String referenceToken() throws IOException {
        return (String) signed(cfg.rewardsUrl() + "/api/getSecuredReferenceToken", Map.of("bName", cfg.channelName()), null).get("referenceKey");
    }

    Map<String, Object> getReward(String virtualId, String txn, double amount) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channelName", cfg.channelName());
        body.put("virtualId", virtualId);
        body.put("triggerEventType", "UPI");
        body.put("extTransactionId", txn);
        body.put("amount", amount);
        body.put("dateandtime", ZonedDateTime.now(ZoneOffset.ofHoursMinutes(5, 30)).format(DateTimeFormatter.ofPattern("ddMMyyyyHHmmss")));
        HttpResponse<String> r = send(post(cfg.rewardsUrl() + "/api/GetReward", MiniJson.write(body)).header("Authorization", "Bearer " + referenceToken()));
        Map<String, Object> m = MiniJson.object(r.body());
        if (r.statusCode() >= 400 || Boolean.FALSE.equals(m.get("status"))) throw new PartnerException(r.statusCode(), String.valueOf(m.get("message")), r.body());
        return m;
    }

    String userToken(String virtualId) throws IOException {
        return (String) signed(cfg.rewardsUrl() + "/api/GetAuthToken", Map.of("channelName", cfg.channelName(), "virtualId", virtualId), null).get("token");
    }

    Map<String, Object> reveal(String token, String virtualId, String rewardId) throws IOException {
        return signed(cfg.rewardsUrl() + "/api/FetchRewardInfo", Map.of("channelName", cfg.channelName(), "rewardId", rewardId, "virtualId", virtualId), token);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> fetchCoupon(String offerId, String virtualId, String txn, int coins) throws IOException {
        Map<String, Object> body = Map.of("offerId", offerId, "virtualId", virtualId, "channelName", cfg.channelName(),
                "extTransactionId", txn, "coinsUsed", Integer.toString(coins));
        HttpResponse<String> r = send(post(cfg.hotdealsUrl() + "/api/fetchCouponCode", MiniJson.write(body))
                .header("Authorization", "ServiceAppKey " + cfg.appKey() + ":" + cfg.secKey()).header("X-CHANNELID", cfg.channelName()));
        Map<String, Object> m;
        try {
            m = MiniJson.object(r.body());
        } catch (RuntimeException e) {
            throw new IOException("fetchCouponCode: an answer that is not JSON: " + r.body(), e);
        }
        if (!(m.get("status") instanceof Number st) || st.intValue() != 200) {
            throw new PartnerException(r.statusCode(), String.valueOf(m.get("errorCode")), r.body());
        }
        return (Map<String, Object>) m.get("data");
    }

    private HttpRequest.Builder post(String url, String json) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(cfg.timeout()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException {
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private Map<String, Object> signed(String url, Map<String, Object> payload, String bearer) throws IOException {
        String bdata = Base64.getEncoder().encodeToString(MiniJson.write(payload).getBytes(StandardCharsets.UTF_8));
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("CHANNELID", cfg.channelId());
        env.put("SIGN", sign(bdata));
        env.put("BDATA", bdata);
        HttpRequest.Builder b = post(url, MiniJson.write(env));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        HttpResponse<String> r = send(b);
        Map<String, Object> answer = MiniJson.object(r.body());
        if (r.statusCode() >= 400 || answer.containsKey("STATUS") || !(answer.get("BDATA") instanceof String data)) {
            throw new PartnerException(r.statusCode(), String.valueOf(answer.getOrDefault("ERRORSTRING", answer.get("message"))), r.body());
        }
        if (!verify(data, (String) answer.get("SIGN"))) throw new PartnerException(r.statusCode(), "BAD_SIGNATURE", r.body());
        Map<String, Object> m = MiniJson.object(new String(Base64.getDecoder().decode(data), StandardCharsets.UTF_8));
        if (Boolean.FALSE.equals(m.get("status"))) throw new PartnerException(r.statusCode(), String.valueOf(m.get("message")), r.body());
        return m;
    }

    private String sign(String bdata) {
        try {
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(cfg.key());
            s.update(bdata.getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean verify(String bdata, String sign) {
        try {
            Signature v = Signature.getInstance("SHA256withRSA");
            v.initVerify(cfg.serviceKey());
            v.update(bdata.getBytes(StandardCharsets.US_ASCII));
            return sign != null && v.verify(Base64.getDecoder().decode(sign));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }
}
