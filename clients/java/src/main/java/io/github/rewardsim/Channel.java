package io.github.rewardsim;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * One run-time channel of a simulator (like DEMOBANK unless made otherwise): its credentials as
 * a service reads them, its publisher client, verify, its own clock, fault rules, state and
 * webhook inbox.
 */
public final class Channel {
    private final RewardsimServer server;
    private final String name;
    private final Publisher publisher;
    private final ChannelCredentials credentials;
    private volatile String webhookUrl;
    private WebhookInbox inbox;

    Channel(RewardsimServer server, Map<String, Object> spec, PrivateKey key, PublicKey serviceKey) {
        this.server = server;
        this.name = (String) spec.get("name");
        String appKey = (String) spec.get("appKey");
        String secKey = (String) spec.get("secKey");
        this.webhookUrl = (String) spec.get("webhookUrl");
        byte[] pw = new byte[12];
        new java.security.SecureRandom().nextBytes(pw);
        this.credentials = new ChannelCredentials(name, spec.get("channelId") instanceof String id ? id : name, appKey, secKey, key,
                (String) spec.get("certificate"), server.serviceCertificatePem(), server.publicUrl(), HexFormat.of().formatHex(pw));
        this.publisher = key == null ? null : new Publisher(this, key, serviceKey, appKey, secKey);
    }

    static String noKey(String name) {
        return "channel " + name + " was registered with a certificate only (ChannelSpec.certificatePem without privateKeyPem):"
                + " the library holds no key to sign with; sign with your service, or give ChannelSpec.privateKeyPem";
    }

    /**
     * The channel's name (bName, channelName, CHANNELID).
     *
     * @return the channel's name (bName, channelName, CHANNELID)
     */
    public String name() { return name; }

    /**
     * The library's own client for this channel: signs with the channel's key, verifies every
     * signed answer.
     *
     * @return the publisher
     * @throws IllegalStateException on a channel registered with a certificate only, saying so
     */
    public Publisher publisher() {
        if (publisher == null) throw new IllegalStateException(noKey(name));
        return publisher;
    }

    /** @return whether the library can sign for this channel ({@link #publisher()} works) */
    public boolean hasPublisher() { return publisher != null; }

    /**
     * Everything a service needs to call the simulator as this channel.
     *
     * @return the channel's credentials
     */
    public ChannelCredentials credentials() { return credentials; }

    /**
     * The channel as a service's configuration properties, each key prefix + "." + one of:
     * {@code rewards-url}, {@code bank-url}, {@code hotdeals-url}, {@code channel-name},
     * {@code channel-id}, {@code app-key}, {@code sec-key}, {@code private-key} (PKCS#8 PEM; absent
     * on a certificate-only channel), {@code certificate} (PEM), {@code service-certificate} (PEM),
     * and {@code webhook-url} when the channel has one.
     *
     * @param prefix such as {@code partner.rewards}
     * @return the properties, in that order
     */
    public Map<String, String> serviceProperties(String prefix) {
        ChannelCredentials c = credentials;
        String p = prefix == null || prefix.isEmpty() ? "" : prefix.endsWith(".") ? prefix : prefix + ".";
        Map<String, String> m = new LinkedHashMap<>();
        m.put(p + "rewards-url", c.rewardsUrl());
        m.put(p + "bank-url", c.bankUrl());
        m.put(p + "hotdeals-url", c.hotdealsUrl());
        m.put(p + "channel-name", c.name());
        m.put(p + "channel-id", c.channelId());
        m.put(p + "app-key", c.appKey());
        m.put(p + "sec-key", c.secKey());
        if (c.hasPrivateKey()) m.put(p + "private-key", c.privateKeyPem());
        m.put(p + "certificate", c.certificatePem());
        m.put(p + "service-certificate", c.serviceCertificatePem());
        if (webhookUrl != null) m.put(p + "webhook-url", webhookUrl);
        return m;
    }

    /**
     * Hands {@link #serviceProperties(String)} to any sink of (name, supplier): Spring's
     * {@code DynamicPropertyRegistry::add} fits, with no Spring dependency here.
     *
     * @param prefix such as {@code partner.rewards}
     * @param sink called once per property
     */
    public void serviceProperties(String prefix, BiConsumer<String, Supplier<Object>> sink) {
        serviceProperties(prefix).forEach((k, v) -> sink.accept(k, () -> v));
    }

    /**
     * Writes the channel's files into dir (created when missing): {@code key.pem} (PKCS#8) and
     * {@code keystore.p12} when the library holds the key, {@code cert.pem}, {@code service.pem},
     * and {@code channel.properties}: {@link #serviceProperties(String)} with no prefix, the PEMs
     * replaced by {@code private-key-file}, {@code certificate-file}, {@code keystore-file},
     * {@code keystore-password} and {@code service-certificate-file} (absolute paths). The files
     * holding a secret ({@code key.pem}, {@code keystore.p12}, {@code channel.properties} with the
     * secret key and the keystore's password) are readable by their owner alone (mode 0600) on a
     * POSIX file system. Give it the test framework's temporary folder (JUnit's {@code @TempDir}),
     * which is removed after the test.
     *
     * @param dir the folder
     * @return dir
     */
    public Path writeFiles(Path dir) {
        ChannelCredentials c = credentials;
        try {
            Files.createDirectories(dir);
            Properties props = new Properties();
            serviceProperties("").forEach(props::setProperty);
            for (String k : new String[] {"private-key", "certificate", "service-certificate"}) props.remove(k);
            if (c.hasPrivateKey()) {
                props.setProperty("private-key-file",
                        writeSecret(dir.resolve("key.pem"), c.privateKeyPem().getBytes(StandardCharsets.US_ASCII)).toAbsolutePath().toString());
                if (Keys.certificate(c.certificatePem()) != null) {
                    Path ks = writeSecret(dir.resolve("keystore.p12"), c.pkcs12());
                    props.setProperty("keystore-file", ks.toAbsolutePath().toString());
                    props.setProperty("keystore-password", c.pkcs12Password());
                }
            }
            props.setProperty("certificate-file", write(dir.resolve("cert.pem"), c.certificatePem()));
            props.setProperty("service-certificate-file", write(dir.resolve("service.pem"), c.serviceCertificatePem()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            props.store(out, "rewardsim channel " + name);
            writeSecret(dir.resolve("channel.properties"), out.toByteArray());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("writing channel " + name + "'s files to " + dir + ": " + e.getMessage(), e);
        }
    }

    // A file only its owner may read or write (0600 on POSIX), made so
    // before it holds the secret; an existing file is narrowed first.
    private static Path writeSecret(Path file, byte[] bytes) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) Files.setPosixFilePermissions(file, owner);
            else Files.createFile(file, PosixFilePermissions.asFileAttribute(owner));
        }
        Files.write(file, bytes);
        return file;
    }

    private static String write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.US_ASCII);
        return file.toAbsolutePath().toString();
    }

    /**
     * Changes this channel's webhook URL alone ({@code PATCH /__sim/channels/{name}}): its
     * credentials, state, faults, clock and journal stay.
     *
     * @param url where coupon-status pushes go
     */
    public void setWebhookUrl(String url) {
        server.control("PATCH", "/__sim/channels/" + RewardsimServer.query(name), Map.of("webhookUrl", url));
        webhookUrl = url;
    }

    /** @return the channel's webhook URL, or null */
    public String webhookUrl() { return webhookUrl; }

    /**
     * A watermark for {@link Verification#since(long)}: every exchange answered after this call
     * has a larger sequence. Safe when tests share the channel, unlike the publisher's last
     * sequence. It costs one journaled call outside every channel (a 404 of the public listener).
     *
     * @return the first sequence an exchange after this call can carry
     */
    public long mark() {
        RewardsimServer.Answer a = server.send("mark", server.request(server.publicUrl() + "/__rewardsim/mark").GET().build());
        if (a.seq() == null) throw new IllegalStateException("the simulator's answer carried no X-Rewardsim-Seq");
        return a.seq() + 1;
    }

    /**
     * Every call of endpoint on this channel, oldest first, as the publisher meant it: an
     * envelope's decoded BDATA, a JSON body, or the query of a GET.
     *
     * @param endpoint the journal's operation name, such as {@code fetchCouponCode}
     * @return the decoded requests
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> findAll(String endpoint) {
        List<Map<String, Object>> out = new ArrayList<>();
        long after = 0;
        while (true) {
            Map<String, Object> page = (Map<String, Object>) server.control("GET", "/__sim/journal?kind=exchange&limit=1000&channel="
                    + RewardsimServer.query(name) + "&endpoint=" + RewardsimServer.query(endpoint) + (after > 0 ? "&after=" + after : ""), null);
            if (page.get("entries") instanceof List<?> entries) {
                for (Object e : entries) {
                    if (e instanceof Map<?, ?> entry) out.add(decoded((Map<String, Object>) entry));
                }
            }
            if (!(page.get("next") instanceof Number next) || next.longValue() <= after) return out;
            after = next.longValue();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> decoded(Map<String, Object> entry) {
        if (entry.get("request") instanceof Map<?, ?> req) {
            if (req.get("bdata") instanceof Map<?, ?> b) return (Map<String, Object>) b;
            if (req.get("body") instanceof Map<?, ?> b) return (Map<String, Object>) b;
        }
        Map<String, Object> q = new LinkedHashMap<>();
        if (entry.get("query") instanceof String query) {
            for (String kv : query.split("&")) {
                if (kv.isEmpty()) continue;
                int eq = kv.indexOf('=');
                q.put(java.net.URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : java.net.URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return q;
    }

    /**
     * The simulator the channel lives on.
     *
     * @return the simulator the channel lives on
     */
    public RewardsimServer server() { return server; }

    /**
     * Counts this channel's exchanges of endpoint (the journal's operation
     * name, such as {@code fetchCouponCode}) whose request matches every
     * predicate of where (JSON pointer to a value, or to {@code Map.of("regex", "...")}).
     * Nothing is asked until times, atLeast, atMost or never is called.
     *
     * @param endpoint the journal's operation name, such as fetchCouponCode
     * @param where JSON pointers to the values the request must hold
     * @return the verify, asked when a count is given
     */
    public Verification verify(String endpoint, Map<String, ?> where) {
        return new Verification(this, endpoint, where);
    }

    /**
     * Every call of endpoint, whatever its request.
     *
     * @param endpoint the journal's operation name, such as fetchCouponCode
     * @return the verify, asked when a count is given
     */
    public Verification verify(String endpoint) {
        return verify(endpoint, Map.of());
    }

    /**
     * Moves this channel's clock only. Pushes that became due are handed to the simulator's delivery
     * workers and the call returns at once (its {@code becameDue} names them); await them in
     * {@link #webhookInbox()}.
     *
     * @param by how far
     * @return the answer: the clock, and {@code becameDue}
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> advanceClock(Duration by) {
        String d = by.getNano() == 0 ? by.getSeconds() + "s" : by.toMillis() + "ms";
        return (Map<String, Object>) server.control("POST", "/__sim/clock/advance", Map.of("channel", name, "by", d));
    }

    /**
     * This channel's clock ({@code GET /__sim/clock?channel=}).
     *
     * @return this channel's clock ({@code GET /__sim/clock?channel=})
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> clock() {
        return (Map<String, Object>) server.control("GET", "/__sim/clock?channel=" + RewardsimServer.query(name), null);
    }

    /**
     * Adds a typed fault rule for this channel.
     *
     * @param fault such as {@code Fault.couponError("COUPON_EXHAUSTED").on("fetchCouponCode").times(1)}
     * @return the rule as the simulator keeps it
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> fault(Fault fault) {
        return (Map<String, Object>) server.control("POST", "/__sim/faults", fault.toRule(name));
    }

    /**
     * Adds a fault rule (JSON, docs/scenarios.md#faults) for this channel: its channel is set to this one.
     *
     * @param ruleJson the rule
     * @return the rule as the simulator keeps it
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> fault(String ruleJson) {
        Map<String, Object> rule = new LinkedHashMap<>(Json.parseObject(ruleJson));
        rule.put("channel", name);
        return (Map<String, Object>) server.control("POST", "/__sim/faults", rule);
    }

    /**
     * Sets a latency profile for this channel ({@link RewardsimServer#latency(Latency, String)}).
     *
     * @param profile such as {@code Latency.logNormal(Duration.ofMillis(200), Duration.ofMillis(800)).on("GetReward")}
     * @return the profile as the simulator keeps it
     */
    public Map<String, Object> latency(Latency profile) {
        return server.latency(profile, name);
    }

    /**
     * Overrides a behaviour switch for this channel ({@link RewardsimServer#setSwitch(Switch, String, String)}).
     *
     * @param sw the switch
     * @param value one of {@link Switch#allowedValues()}
     * @return the switch as it now is
     */
    public Map<String, Object> setSwitch(Switch sw, String value) {
        return server.setSwitch(sw, value, name);
    }

    /**
     * Puts the scenario's value of a switch back for this channel.
     *
     * @param sw the switch; null: every switch overridden for this channel
     * @return this channel's switches, with {@code reset} naming those put back
     */
    public Map<String, Object> resetSwitch(Switch sw) {
        return server.resetSwitch(sw, name);
    }

    /**
     * Holds this channel to a capacity limit (docs/limits.md) over its scenario's, kept across a
     * restart: a call over it waits up to the limit's wait, then is refused in the endpoint's own
     * failure shape (HTTP 503 and Retry-After by default).
     *
     * @param limit such as {@code Limit.inFlight(4).rate(50).waitUpTo(Duration.ofMillis(250))}
     * @return the limit in force: limit, burst, source and its counts (stats)
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> limit(Limit limit) {
        return (Map<String, Object>) server.control("POST", "/__sim/limits", limit.toBody(name));
    }

    /**
     * This channel's capacity limit in force, with what it admitted, held and refused.
     *
     * @return the limit and its counts (stats); null when none holds the channel
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> limits() {
        Map<String, Object> out = (Map<String, Object>) server.control("GET", "/__sim/limits?channel=" + RewardsimServer.query(name), null);
        List<Object> list = (List<Object>) out.get("limits");
        return list == null || list.isEmpty() ? null : (Map<String, Object>) list.get(0);
    }

    /**
     * Removes this channel's run-time limit: its scenario's, if any, is in force again.
     *
     * @return what is in force for the channel now
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> removeLimit() {
        return (Map<String, Object>) server.control("DELETE", "/__sim/limits/" + RewardsimServer.query(name), null);
    }

    /**
     * Schedules a coupon-status push to the channel's webhookUrl: offerId, reason, and optional fields.
     * Returns at once, before the push is attempted; await it in {@link #webhookInbox()}.
     *
     * @param push offerId, reason and optional fields
     * @return the scheduled push
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> webhook(Map<String, ?> push) {
        Map<String, Object> body = new LinkedHashMap<>(push);
        body.put("channel", name);
        return (Map<String, Object>) server.control("POST", "/__sim/webhooks", body);
    }

    /** Wipes this channel's state (tokens, sessions, cards, coupons, pushes), its fault rules and its journal. */
    public void reset() {
        server.control("POST", "/__sim/state/reset", Map.of("channel", name));
        Object faults = server.control("GET", "/__sim/faults", null);
        if (faults instanceof Map<?, ?> m && m.get("rules") instanceof List<?> rules) {
            for (Object r : rules) {
                if (r instanceof Map<?, ?> rule && name.equals(rule.get("channel")) && rule.get("id") instanceof String id) {
                    server.control("DELETE", "/__sim/faults/" + RewardsimServer.query(id), null);
                }
            }
        }
        server.control("DELETE", "/__sim/journal?channel=" + RewardsimServer.query(name), null);
    }

    /**
     * This channel's conformance report ({@code GET /__sim/report?channel=}): the rules that
     * fired on its journal so far.
     *
     * @return the report
     */
    public Report report() {
        return server.report(name);
    }

    /**
     * This channel's conformance report, failing on its findings of severity failOn or worse, as
     * {@code rewardsim report --fail-on} does: {@code ch.report(Report.Severity.ERROR)}.
     *
     * @param failOn the least severity that fails
     * @return the report, when it has no such finding
     * @throws AssertionError listing the findings of that severity or worse
     */
    public Report report(Report.Severity failOn) {
        return report().failOn(failOn);
    }

    /**
     * This channel's journal ({@code GET /__sim/journal?channel=}).
     *
     * @return this channel's journal ({@code GET /__sim/journal?channel=})
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> journal() {
        return (Map<String, Object>) server.control("GET", "/__sim/journal?channel=" + RewardsimServer.query(name), null);
    }

    /**
     * A local endpoint on 127.0.0.1, made this channel's webhookUrl (that one setting: the
     * channel's key and credentials stay): it answers {@code {"status":"OK"}} and keeps every
     * push. One per channel.
     *
     * @return the inbox
     */
    public synchronized WebhookInbox webhookInbox() {
        if (inbox != null) return inbox;
        WebhookInbox in = WebhookInbox.open();
        try {
            setWebhookUrl(in.url());
        } catch (RuntimeException e) {
            in.close();
            throw e;
        }
        inbox = in;
        return in;
    }

    /** Stops the webhook inbox, if one was opened (a later webhookInbox() opens a new one). */
    public synchronized void closeInbox() {
        if (inbox != null) inbox.close();
        inbox = null;
    }

    @Override
    public String toString() {
        return "Channel[" + name + " on " + server.publicUrl() + "]";
    }
}
