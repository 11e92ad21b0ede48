package io.github.rewardsim;

/**
 * What a new channel is made of: the channel it copies, and optionally the
 * team's own key (or certificate alone), credentials and webhook URL.
 * Anything not given is made by the library (a fresh RSA key, registered
 * with {@code keyOrigin: library}, and a fresh app key).
 *
 * <pre>{@code
 * Channel ch = server.newChannel(ChannelSpec.like("DEMOBANK").privateKeyPem(pem).webhookUrl(url));
 * }</pre>
 */
public final class ChannelSpec {
    private final String like;
    private String name;
    private String privateKeyPem;
    private String certificatePem;
    private String webhookUrl;
    private String appKey;
    private String secKey;
    private String test;

    private ChannelSpec(String like) {
        this.like = like;
    }

    /**
     * A channel like {@code channel}: its campaigns, offers (with stock of
     * their own) and switches.
     *
     * @param channel the channel to copy; null copies REWARDSIM_LIKE when set, else DEMOBANK
     * @return a new spec
     */
    public static ChannelSpec like(String channel) {
        return new ChannelSpec(channel);
    }

    /**
     * The default channel: like REWARDSIM_LIKE when set, else DEMOBANK.
     *
     * @return a new spec
     */
    public static ChannelSpec defaults() {
        return new ChannelSpec(null);
    }

    /**
     * The channel's name (bName, channelName, CHANNELID); by default "T-" and 12 hex digits.
     *
     * @param name the name
     * @return this spec
     */
    public ChannelSpec name(String name) {
        this.name = name;
        return this;
    }

    /**
     * The team's own signing key, PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}); the channel's
     * certificate is then {@link #certificatePem(String)} or, when not given, a self-signed one for it.
     *
     * @param pem the key
     * @return this spec
     */
    public ChannelSpec privateKeyPem(String pem) {
        this.privateKeyPem = pem;
        return this;
    }

    /**
     * The team's own certificate (or public key) PEM. Given alone, the library holds no key:
     * {@link Channel#publisher()} then throws, saying why.
     *
     * @param pem the certificate
     * @return this spec
     */
    public ChannelSpec certificatePem(String pem) {
        this.certificatePem = pem;
        return this;
    }

    /**
     * Where the simulator pushes coupon-status webhooks for this channel.
     *
     * @param url the webhook URL
     * @return this spec
     */
    public ChannelSpec webhookUrl(String url) {
        this.webhookUrl = url;
        return this;
    }

    /**
     * The coupon host's credentials ({@code ServiceAppKey appKey:secKey}); fresh ones by default.
     *
     * @param appKey the app key
     * @param secKey the secret key
     * @return this spec
     */
    public ChannelSpec appKey(String appKey, String secKey) {
        this.appKey = appKey;
        this.secKey = secKey;
        return this;
    }

    /**
     * The test this channel is for, as {@code rewardsim sweep} names it (REWARDSIM_SWEEP_CHANNELS);
     * default: the test {@link RewardsimServer#runningTest(String)} named on this thread, which the
     * JUnit extension does.
     *
     * @param test such as {@code com.example.ClaimTest} or {@code com.example.ClaimTest#retries}
     * @return this spec
     */
    public ChannelSpec test(String test) {
        this.test = test;
        return this;
    }

    String testOrNull() { return test; }

    String likeName() { return like; }

    String nameOrNull() { return name; }

    String privateKey() { return privateKeyPem; }

    String certificate() { return certificatePem; }

    String webhook() { return webhookUrl; }

    String app() { return appKey; }

    String sec() { return secKey; }
}
