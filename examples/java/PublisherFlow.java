// The whole publisher flow against a running `rewardsim serve`, with the JDK
// only (java.net.http, java.security): a single-file source program, Java 17+.
//
//   REWARDSIM_URL=http://127.0.0.1:8080 REWARDSIM_CONTROL_URL=http://127.0.0.1:8090 \
//   REWARDSIM_CERTS=../../certs java PublisherFlow.java
//
// The publisher key comes from the PKCS#12 keystore certs/publisher-dev.p12
// (test-only password "rewardsim-test-only"). It exits non-zero at the first
// step that does not answer as the contract says.
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class PublisherFlow {
    static final String BASE = env("REWARDSIM_URL", "http://127.0.0.1:8080");
    static final String CONTROL = env("REWARDSIM_CONTROL_URL", "http://127.0.0.1:8090");
    static final String CERTS = env("REWARDSIM_CERTS", "../../certs");
    static final String CHANNEL = "DEMOBANK";
    static final String APP_KEY = "ServiceAppKey DEMOAPPKEY:DEMOSECKEY";
    static final char[] P12_PASSWORD = "rewardsim-test-only".toCharArray();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static PrivateKey publisherKey;
    static PublicKey servicePub;

    public static void main(String[] args) throws Exception {
        // The publisher key from the PKCS#12 keystore (its one alias).
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(Path.of(CERTS, "publisher-dev.p12").toFile())) {
            ks.load(in, P12_PASSWORD);
        }
        String alias = ks.aliases().nextElement();
        publisherKey = (PrivateKey) ks.getKey(alias, P12_PASSWORD);
        check(publisherKey != null, "publisher key from publisher-dev.p12 (alias " + alias + ")", "");

        // 0. The service certificate that verifies every signed answer.
        HttpResponse<String> pem = HTTP.send(HttpRequest.newBuilder(URI.create(CONTROL + "/__sim/certs/service.pem")).build(),
                HttpResponse.BodyHandlers.ofString());
        check(pem.statusCode() == 200, "GET /__sim/certs/service.pem", pem.body());
        servicePub = CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem.body().getBytes(StandardCharsets.US_ASCII))).getPublicKey();

        String virtualId = "VU-JAVA-" + System.currentTimeMillis();

        // 1. Reference token (signed).
        Map<String, Object> ref = open(call("POST", "/api/getSecuredReferenceToken", seal(obj("bName", CHANNEL)), null, false), "getSecuredReferenceToken");
        String referenceKey = (String) ref.get("referenceKey");
        check(referenceKey != null && referenceKey.length() >= 16, "reference token issued", ref);

        // 2. GetReward with the reference token: one card for a UPI payment.
        String when = ZonedDateTime.now(ZoneId.of("Asia/Kolkata")).format(DateTimeFormatter.ofPattern("ddMMyyyyHHmmss"));
        Res reward = call("POST", "/api/GetReward", obj("channelName", CHANNEL, "virtualId", virtualId, "triggerEventType", "UPI",
                "extTransactionId", "TXN-" + virtualId, "amount", 250.5, "dateandtime", when), referenceKey, false);
        check(reward.status == 200 && Boolean.TRUE.equals(reward.json().get("status")) && ((List<?>) reward.json().get("rewards")).size() == 1,
                "GetReward issues a card", reward.body);

        // 3. User token (signed), scoped to virtualId.
        Map<String, Object> user = open(call("POST", "/api/GetAuthToken", seal(obj("channelName", CHANNEL, "virtualId", virtualId)), null, false), "GetAuthToken");
        String token = (String) user.get("token");
        check(token != null, "user token issued", user);

        // 4. Listing: the new card, not yet scratched.
        Res list = call("GET", "/api/GetAllScratchCardsByUserId", null, token, false);
        Map<?, ?> first = (Map<?, ?>) ((List<?>) list.json().get("rewards")).get(0);
        check(list.status == 200 && Json.num(list.json().get("total")) == 1 && Boolean.FALSE.equals(first.get("isAlreadyRewarded")),
                "listing shows the unscratched card", list.body);
        long rewardId = Json.num(first.get("rewardId"));

        // 5. Reveal (signed, with the user token); the answer's signature verified.
        Map<String, Object> revealed = open(call("POST", "/api/FetchRewardInfo",
                seal(obj("channelName", CHANNEL, "rewardId", Long.toString(rewardId), "virtualId", virtualId)), token, false), "FetchRewardInfo");
        check(Boolean.TRUE.equals(revealed.get("status")) && Json.num(revealed.get("rewardId")) == rewardId, "reveal answers the card", revealed);
        Res after = call("GET", "/api/GetAllScratchCardsByUserId", null, token, false);
        Map<?, ?> again = (Map<?, ?>) ((List<?>) after.json().get("rewards")).get(0);
        check(Boolean.TRUE.equals(again.get("isAlreadyRewarded")), "listing shows the card revealed", after.body);

        // 6. Bank session (signed).
        Map<String, Object> session = open(call("POST", "/api/GenerateSessionInfoV2", seal(obj("bName", CHANNEL, "virtualId", virtualId)), null, false), "GenerateSessionInfoV2");
        check(session.get("sessionId") instanceof String, "session issued", session);

        // 7. GetScratchCardForBank (signed).
        Map<String, Object> bank = open(call("POST", "/api/GetScratchCardForBank", seal(obj("virtualId", virtualId,
                "transDateAndTime", "2026-01-15 09:59:00", "amount", "500.00", "mcc", "5411", "extTransactionId", "ORD-" + virtualId,
                "campaignId", "CAMP-DEMO", "deviceToken", "java-device")), null, false), "GetScratchCardForBank");
        check(Boolean.TRUE.equals(bank.get("status")) && !((String) bank.get("deepLink")).isEmpty(), "bank card issued", bank);

        // 8. fetchCouponCode (ServiceAppKey).
        Res coupon = call("POST", "/api/fetchCouponCode", obj("offerId", "OFFER-DEMO", "virtualId", virtualId, "channelName", CHANNEL,
                "extTransactionId", "CPN-" + virtualId, "coinsUsed", "100"), null, true);
        Map<?, ?> data = (Map<?, ?>) coupon.json().get("data");
        check(coupon.status == 200 && Json.num(coupon.json().get("status")) == 200 && data != null && data.get("coupon_code") != null,
                "fetchCouponCode delivers a code", coupon.body);

        // Provoked failures, one of each kind.
        // a. A SIGN that is not over this BDATA: the bare failure "Signature Mismatch!".
        Map<String, Object> forged = seal(obj("bName", CHANNEL));
        forged.put("BDATA", b64(Json.write(obj("bName", CHANNEL, "extra", 1))));
        Res mismatch = call("POST", "/api/getSecuredReferenceToken", forged, null, false);
        check("FAILURE".equals(mismatch.json().get("STATUS")) && "Signature Mismatch!".equals(mismatch.json().get("ERRORSTRING")),
                "tampered BDATA answers Signature Mismatch!", mismatch.body);

        // b. A bearer token the service never issued: HTTP 401.
        Res unauth = call("GET", "/api/GetAllScratchCardsByUserId", null, "not-a-token-the-service-issued", false);
        check(unauth.status == 401, "unknown bearer token answers HTTP 401", unauth.status + " " + unauth.body);

        // c. A coupon error code: OFFER-VIP is for VIP-* users only. The error is
        // in the body; the HTTP status is 200 or mirrors it (switches.coupons, CPN-3).
        Res vip = call("POST", "/api/fetchCouponCode", obj("offerId", "OFFER-VIP", "virtualId", virtualId, "channelName", CHANNEL,
                "extTransactionId", "VIP-" + virtualId, "coinsUsed", "100"), null, true);
        check((vip.status == 200 || vip.status == 403) && Json.num(vip.json().get("status")) == 403 && "NON_ELIGIBLE".equals(vip.json().get("errorCode")),
                "OFFER-VIP answers 403 NON_ELIGIBLE", vip.status + " " + vip.body);

        System.out.println("java publisher flow: all steps passed");
    }

    // An envelope: BDATA is the base64 of the JSON payload; SIGN is
    // SHA256withRSA over the BDATA string.
    static Map<String, Object> seal(Map<String, Object> payload) throws Exception {
        String bdata = b64(Json.write(payload));
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(publisherKey);
        s.update(bdata.getBytes(StandardCharsets.US_ASCII));
        return obj("CHANNELID", CHANNEL, "SIGN", Base64.getEncoder().encodeToString(s.sign()), "BDATA", bdata);
    }

    // open verifies a signed answer with the service certificate and returns
    // its decoded BDATA; a bare failure {STATUS, ERRORSTRING} fails the run.
    @SuppressWarnings("unchecked")
    static Map<String, Object> open(Res res, String what) throws Exception {
        Map<String, Object> env = res.json();
        check(res.status == 200 && env.get("SIGN") instanceof String && env.get("BDATA") instanceof String, what + ": signed envelope", res.body);
        Signature v = Signature.getInstance("SHA256withRSA");
        v.initVerify(servicePub);
        v.update(((String) env.get("BDATA")).getBytes(StandardCharsets.US_ASCII));
        check(v.verify(Base64.getDecoder().decode((String) env.get("SIGN"))), what + ": SIGN verifies with /__sim/certs/service.pem", res.body);
        return (Map<String, Object>) Json.parse(new String(Base64.getDecoder().decode((String) env.get("BDATA")), StandardCharsets.UTF_8));
    }

    record Res(int status, String body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> json() {
            Object o = Json.parse(body);
            return o instanceof Map ? (Map<String, Object>) o : Map.of();
        }
    }

    static Res call(String method, String path, Map<String, Object> body, String bearer, boolean appKey) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(BASE + path)).header("Content-Type", "application/json");
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        if (appKey) b.header("Authorization", APP_KEY).header("X-CHANNELID", CHANNEL);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(Json.write(body)));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Res(r.statusCode(), r.body());
    }

    static void check(boolean ok, String what, Object detail) {
        if (!ok) {
            System.err.println("FAIL " + what + ": " + detail);
            System.exit(1);
        }
        System.out.println("ok   " + what);
    }

    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static String b64(String s) { return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8)); }

    static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? def : v;
    }

    // Just enough JSON for the flow: the JDK has no JSON API.
    static final class Json {
        private final String s;
        private int i;
        private Json(String s) { this.s = s; }

        static Object parse(String s) {
            try {
                Json j = new Json(s);
                Object v = j.value();
                j.ws();
                return j.i == s.length() ? v : null;
            } catch (RuntimeException e) {
                return null; // not JSON: callers check what they expect
            }
        }

        static long num(Object o) { return o instanceof Number n ? n.longValue() : Long.MIN_VALUE; }

        static String write(Object v) {
            if (v == null) return "null";
            if (v instanceof String str) {
                StringBuilder b = new StringBuilder("\"");
                for (char c : str.toCharArray()) {
                    if (c == '"' || c == '\\') b.append('\\').append(c);
                    else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
                return b.append('"').toString();
            }
            if (v instanceof Map<?, ?> m) {
                List<String> parts = new ArrayList<>();
                m.forEach((k, x) -> parts.add(write(k) + ":" + write(x)));
                return "{" + String.join(",", parts) + "}";
            }
            return v.toString(); // numbers and booleans
        }

        private void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        private Object value() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    Map<String, Object> m = new LinkedHashMap<>();
                    i++; ws();
                    if (s.charAt(i) == '}') { i++; return m; }
                    while (true) {
                        ws();
                        String k = (String) value();
                        ws(); expect(':');
                        m.put(k, value());
                        ws();
                        if (s.charAt(i++) == '}') return m;
                    }
                }
                case '[': {
                    List<Object> l = new ArrayList<>();
                    i++; ws();
                    if (s.charAt(i) == ']') { i++; return l; }
                    while (true) {
                        l.add(value());
                        ws();
                        if (s.charAt(i++) == ']') return l;
                    }
                }
                case '"': {
                    StringBuilder b = new StringBuilder();
                    i++;
                    while ((c = s.charAt(i++)) != '"') {
                        if (c != '\\') { b.append(c); continue; }
                        c = s.charAt(i++);
                        switch (c) {
                            case 'n' -> b.append('\n');
                            case 't' -> b.append('\t');
                            case 'r' -> b.append('\r');
                            case 'b' -> b.append('\b');
                            case 'f' -> b.append('\f');
                            case 'u' -> { b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; }
                            default -> b.append(c);
                        }
                    }
                    return b.toString();
                }
                default: {
                    if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
                    if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
                    if (s.startsWith("null", i)) { i += 4; return null; }
                    int start = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
                    String n = s.substring(start, i);
                    if (n.isEmpty()) throw new IllegalArgumentException("bad JSON at " + start);
                    return n.matches("-?\\d+") ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
                }
            }
        }

        private void expect(char c) {
            if (s.charAt(i++) != c) throw new IllegalArgumentException("expected " + c + " at " + (i - 1));
        }
    }
}
