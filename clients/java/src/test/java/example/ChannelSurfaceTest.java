package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.ChannelCredentials;
import io.github.rewardsim.ChannelSpec;
import io.github.rewardsim.Fault;
import io.github.rewardsim.Json;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.WebhookInbox;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

// Issue 39: the channel as a service sees it, a team's own key and webhook, typed faults.
// Isolated: it sets the rewardsim.* system properties the other classes read.
@Isolated
class ChannelSurfaceTest {
    static final RewardsimServer SERVER = RewardsimServer.fromEnvironment();

    // A service of our own: signs getSecuredReferenceToken with the PEM key it was handed.
    static int referenceTokenStatus(ChannelCredentials c, String privateKeyPem) throws Exception {
        byte[] der = Base64.getMimeDecoder().decode(privateKeyPem.replaceAll("-----[A-Z ]+-----", ""));
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        String bdata = Base64.getEncoder().encodeToString(("{\"bName\":\"" + c.name() + "\"}").getBytes(StandardCharsets.UTF_8));
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(key);
        s.update(bdata.getBytes(StandardCharsets.US_ASCII));
        String env = Json.write(Map.of("CHANNELID", c.channelId(), "SIGN", Base64.getEncoder().encodeToString(s.sign()), "BDATA", bdata));
        HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create(c.rewardsUrl() + "/api/getSecuredReferenceToken")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(env)).build(), HttpResponse.BodyHandlers.ofString());
        return r.body().contains("\"STATUS\"") ? 401 : r.statusCode();
    }

    @Test
    void credentialsInEveryForm(@TempDir Path tmp) throws Exception {
        Channel ch = SERVER.newChannel();
        ChannelCredentials c = ch.credentials();
        assertEquals(ch.name(), c.name());
        assertEquals(200, referenceTokenStatus(c, c.privateKeyPem()), "a service signing with privateKeyPem is accepted");
        assertTrue(c.certificatePem().startsWith("-----BEGIN CERTIFICATE-----"), c.certificatePem());
        assertTrue(c.serviceCertificatePem().contains("BEGIN CERTIFICATE"));
        assertEquals(SERVER.publicUrl(), c.rewardsUrl());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(new ByteArrayInputStream(c.pkcs12()), c.pkcs12Password().toCharArray());
        assertNotNull(ks.getKey(c.name(), c.pkcs12Password().toCharArray()));
        assertEquals("CN=" + c.name(), ((X509Certificate) ks.getCertificate(c.name())).getSubjectX500Principal().getName());

        Map<String, String> p = ch.serviceProperties("partner.rewards");
        assertEquals(List.of("partner.rewards.rewards-url", "partner.rewards.bank-url", "partner.rewards.hotdeals-url",
                "partner.rewards.channel-name", "partner.rewards.channel-id", "partner.rewards.app-key", "partner.rewards.sec-key",
                "partner.rewards.private-key", "partner.rewards.certificate", "partner.rewards.service-certificate"), new ArrayList<>(p.keySet()));
        Map<String, Supplier<Object>> registry = new LinkedHashMap<>();
        ch.serviceProperties("partner.rewards", registry::put);
        assertEquals(c.appKey(), registry.get("partner.rewards.app-key").get());

        Path dir = ch.writeFiles(tmp.resolve("channel"));
        for (String f : List.of("key.pem", "cert.pem", "keystore.p12", "service.pem", "channel.properties")) assertTrue(Files.exists(dir.resolve(f)), f);
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve("channel.properties"))) {
            props.load(in);
        }
        assertEquals(c.secKey(), props.getProperty("sec-key"));
        assertEquals(c.privateKeyPem(), Files.readString(Path.of(props.getProperty("private-key-file"))));
        // issue 51: what holds a secret is its owner's alone.
        for (String f : List.of("key.pem", "keystore.p12", "channel.properties")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(f))), f);
        }
        ch.writeFiles(dir); // again: still the owner's alone
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("key.pem"))));
    }

    @Test
    void aTeamsOwnKeyAndWebhookStayThroughInboxResetAndClock() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair team = g.generateKeyPair();
        String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder().encodeToString(team.getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
        Channel ch = SERVER.newChannel(ChannelSpec.like("DEMOBANK").privateKeyPem(pem).webhookUrl("http://127.0.0.1:9/hooks"));
        assertEquals("http://127.0.0.1:9/hooks", ch.serviceProperties("p").get("p.webhook-url"));
        assertEquals(200, referenceTokenStatus(ch.credentials(), pem));
        WebhookInbox inbox = ch.webhookInbox();
        ch.reset();
        ch.advanceClock(Duration.ofHours(2));
        assertEquals(200, referenceTokenStatus(ch.credentials(), pem), "the team's key stays through webhookInbox, reset and a clock move");
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-OWN", "T-OWN", 100);
        ch.webhook(Map.of("offerId", "OFFER-DEMO", "reason", "OUT_OF_STOCK"));
        assertEquals(ch.name(), inbox.await("COUPON_INVALIDATED", Duration.ofSeconds(10)).get("channelName"));
        ch.setWebhookUrl("http://127.0.0.1:9/other");
        assertEquals(200, referenceTokenStatus(ch.credentials(), pem), "setWebhookUrl keeps the key");
    }

    @Test
    void aCertificateOnlyChannelHasNoPublisherAndSaysWhy() {
        Channel source = SERVER.newChannel();
        Channel ch = SERVER.newChannel(ChannelSpec.like("DEMOBANK").certificatePem(source.credentials().certificatePem()));
        assertFalse(ch.hasPublisher());
        IllegalStateException e = assertThrows(IllegalStateException.class, ch::publisher);
        assertTrue(e.getMessage().contains("certificate only"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> ch.credentials().privateKeyPem());
        assertFalse(ch.serviceProperties("p").containsKey("p.private-key"));
    }

    @Test
    void aLibraryKeyUsedByAnotherKeySaysSo() throws Exception {
        Channel ch = SERVER.newChannel();
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        String other = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder().encodeToString(g.generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
        assertEquals(401, referenceTokenStatus(ch.credentials(), other));
        Map<String, Object> last = lastEntry(ch);
        assertTrue(String.valueOf(last.get("reason")).contains("made by the test library"), last.toString());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> lastEntry(Channel ch) {
        List<Object> entries = (List<Object>) ch.journal().get("entries");
        return (Map<String, Object>) entries.get(entries.size() - 1);
    }

    @Test
    void typedFaultsFindAllAndMark() {
        Channel ch = SERVER.newChannel();
        long mark = ch.mark();
        ch.fault(Fault.couponError(Fault.COUPON_EXHAUSTED).on("fetchCouponCode").times(1));
        RewardsimException e = assertThrows(RewardsimException.class, () -> ch.publisher().fetchCoupon("OFFER-DEMO", "VU-F", "T-F1", 100));
        assertEquals("COUPON_EXHAUSTED", e.errorCode());
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-F", "T-F2", 100);
        ch.verify("fetchCouponCode").since(mark).times(2);
        assertEquals(List.of("T-F1", "T-F2"), ch.findAll("fetchCouponCode").stream().map(r -> r.get("extTransactionId")).toList());
        assertEquals("VU-F", ch.findAll("fetchCouponCode").get(0).get("virtualId"));
        ch.verify("fetchCouponCode").since(ch.mark()).never();
        RewardsimException refused = assertThrows(RewardsimException.class, () -> ch.fault(Fault.couponError("X").on("GetAuthToken")));
        assertEquals(400, refused.status(), refused.getMessage());
    }

    // Issue 51: the answer-sign faults, the way to test that a service verifies what it is told.
    @Test
    void answerSignFaultsBreakTheSignatureTheLibraryChecks() {
        Channel ch = SERVER.newChannel();
        for (Fault f : List.of(Fault.answerSignOtherBytes(), Fault.answerSignOtherKey(), Fault.answerSignAbsent())) {
            ch.fault(f.on("GenerateSessionInfoV2").times(1));
            RewardsimException e = assertThrows(RewardsimException.class, () -> ch.publisher().sessionId("VU-SIGN"));
            assertTrue(e.getMessage().contains("SIGN"), e.getMessage());
            assertNotNull(ch.publisher().sessionId("VU-SIGN")); // the next answer is signed again
        }
    }

    @Test
    void verifyCannotPassByMistake() {
        Channel ch = SERVER.newChannel();
        RewardsimException typo = assertThrows(RewardsimException.class,
                () -> ch.verify("fetchCouponCode", Map.of("/extTransactionID", "T-1")).never());
        assertEquals(400, typo.status(), typo.getMessage());
        assertTrue(typo.getMessage().contains("/extTransactionId"), typo.getMessage());
        Channel ghost = SERVER.newChannel();
        SERVER.control("DELETE", "/__sim/channels/" + ghost.name(), null);
        RewardsimException unknown = assertThrows(RewardsimException.class, () -> ghost.verify("fetchCouponCode").never());
        assertEquals(404, unknown.status(), unknown.getMessage());
        assertTrue(unknown.getMessage().contains(ghost.name()), unknown.getMessage());
    }

    @Test
    void theControlUrlIsNeverGuessed() {
        System.setProperty("rewardsim.url", SERVER.publicUrl());
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, RewardsimServer::fromEnvironment);
            assertTrue(e.getMessage().contains("REWARDSIM_CONTROL_URL"), e.getMessage());
            System.setProperty("rewardsim.controlUrl", SERVER.controlUrl());
            assertEquals(SERVER.publicUrl(), RewardsimServer.fromEnvironment().publicUrl());
        } finally {
            System.clearProperty("rewardsim.url");
            System.clearProperty("rewardsim.controlUrl");
        }
    }

    @Test
    void aChannelLikeRewardsimLikeCopiesItsFaults() {
        Channel template = SERVER.newChannel();
        template.fault(Fault.couponError(Fault.MAX_LIMIT_REACHED).on("fetchCouponCode"));
        System.setProperty("rewardsim.like", template.name());
        Channel copy;
        try {
            copy = SERVER.newChannel();
        } finally {
            System.clearProperty("rewardsim.like");
        }
        assertNotEquals(template.name(), copy.name());
        RewardsimException e = assertThrows(RewardsimException.class, () -> copy.publisher().fetchCoupon("OFFER-DEMO", "VU-L", "T-L", 100));
        assertEquals("MAX_LIMIT_REACHED", e.errorCode());
    }
}
