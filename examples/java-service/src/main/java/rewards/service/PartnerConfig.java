package rewards.service;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/**
 * The partner's settings, read from configuration properties under one prefix (the names a
 * test gets from {@code ch.serviceProperties(prefix)}): rewards-url, bank-url, hotdeals-url,
 * channel-name, channel-id, app-key, sec-key, private-key (PKCS#8 PEM), service-certificate
 * (PEM), and the service's own timeout-ms (default 2000).
 */
record PartnerConfig(String rewardsUrl, String bankUrl, String hotdealsUrl, String channelName, String channelId,
        String appKey, String secKey, PrivateKey key, PublicKey serviceKey, Duration timeout) {

    static PartnerConfig from(Map<String, String> props, String prefix) {
        String p = prefix + ".";
        try {
            return new PartnerConfig(get(props, p + "rewards-url"), get(props, p + "bank-url"), get(props, p + "hotdeals-url"),
                    get(props, p + "channel-name"), get(props, p + "channel-id"), get(props, p + "app-key"), get(props, p + "sec-key"),
                    KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der(get(props, p + "private-key")))),
                    CertificateFactory.getInstance("X.509").generateCertificate(
                            new ByteArrayInputStream(get(props, p + "service-certificate").getBytes())).getPublicKey(),
                    Duration.ofMillis(Long.parseLong(props.getOrDefault(p + "timeout-ms", "2000"))));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("partner settings: " + e.getMessage(), e);
        }
    }

    private static String get(Map<String, String> props, String name) {
        String v = props.get(name);
        if (v == null || v.isBlank()) throw new IllegalArgumentException("missing setting " + name);
        return v;
    }

    private static byte[] der(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }
}
