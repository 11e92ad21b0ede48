package io.github.rewardsim;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * Everything a publisher's service needs to call the simulator as one channel, in the forms
 * services read: ids, the coupon host's app key, the signing key and certificate (PEM and
 * PKCS#12), the certificate that verifies the simulator's signed answers, and the three base URLs.
 */
public final class ChannelCredentials {
    private final String name;
    private final String channelId;
    private final String appKey;
    private final String secKey;
    private final PrivateKey key;
    private final String certificatePem;
    private final String serviceCertificatePem;
    private final String url;
    private final String password;
    private byte[] pkcs12;

    ChannelCredentials(String name, String channelId, String appKey, String secKey, PrivateKey key, String certificatePem,
            String serviceCertificatePem, String url, String password) {
        this.name = name;
        this.channelId = channelId;
        this.appKey = appKey;
        this.secKey = secKey;
        this.key = key;
        this.certificatePem = certificatePem;
        this.serviceCertificatePem = serviceCertificatePem;
        this.url = url;
        this.password = password;
    }

    /** @return the channel's name: bName, channelName, X-CHANNELID */
    public String name() { return name; }

    /** @return the envelope's CHANNELID */
    public String channelId() { return channelId; }

    /** @return the coupon host's app key ({@code ServiceAppKey appKey:secKey}) */
    public String appKey() { return appKey; }

    /** @return the coupon host's secret key */
    public String secKey() { return secKey; }

    /** @return whether the library holds the channel's private key (false for a certificate-only channel) */
    public boolean hasPrivateKey() { return key != null; }

    /**
     * The channel's signing key.
     *
     * @return its PKCS#8 PEM
     * @throws IllegalStateException on a channel registered with a certificate only
     */
    public String privateKeyPem() {
        return Keys.pem("PRIVATE KEY", requireKey().getEncoded());
    }

    /** @return the channel's X.509 certificate (or public key) PEM, as registered */
    public String certificatePem() { return certificatePem; }

    /**
     * A PKCS#12 keystore holding the private key and its certificate under the alias
     * {@link #name()}, protected by {@link #pkcs12Password()}.
     *
     * @return the keystore's bytes
     * @throws IllegalStateException on a certificate-only channel, or one registered with a bare public key
     */
    public synchronized byte[] pkcs12() {
        if (pkcs12 == null) {
            X509Certificate cert = Keys.certificate(certificatePem);
            if (cert == null) throw new IllegalStateException("channel " + name + " was registered with a bare PUBLIC KEY: a keystore needs a certificate");
            pkcs12 = Keys.pkcs12(name, requireKey(), cert, password.toCharArray());
        }
        return pkcs12.clone();
    }

    /** @return the password of {@link #pkcs12()} (and of its key entry) */
    public String pkcs12Password() { return password; }

    /** @return the simulator's service certificate PEM, which verifies its signed answers */
    public String serviceCertificatePem() { return serviceCertificatePem; }

    /** @return the rewards host's base URL (GetReward, GetAuthToken, ...) */
    public String rewardsUrl() { return url; }

    /** @return the bank host's base URL (GenerateSessionInfoV2, GetScratchCardForBank) */
    public String bankUrl() { return url; }

    /** @return the coupon (hot deals) host's base URL */
    public String hotdealsUrl() { return url; }

    PrivateKey privateKey() { return key; }

    private PrivateKey requireKey() {
        if (key == null) throw new IllegalStateException(Channel.noKey(name));
        return key;
    }

    @Override
    public String toString() {
        return "ChannelCredentials[" + name + ", appKey " + appKey + ", " + url + "]";
    }
}
