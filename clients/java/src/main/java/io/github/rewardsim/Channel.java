package io.github.rewardsim;

import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run-time channel of a simulator (like DEMOBANK unless made otherwise):
 * its publisher client, verify, its own clock, fault rules, state and webhook inbox.
 */
public final class Channel {
    private final RewardsimServer server;
    private final String name;
    private final Publisher publisher;
    private Map<String, Object> spec;
    private WebhookInbox inbox;

    Channel(RewardsimServer server, Map<String, Object> spec, PrivateKey key, PublicKey serviceKey) {
        this.server = server;
        this.spec = spec;
        this.name = (String) spec.get("name");
        this.publisher = new Publisher(this, key, serviceKey, (String) spec.get("appKey"), (String) spec.get("secKey"));
    }

    /** The channel's name (bName, channelName, CHANNELID). */
    public String name() { return name; }

    /** The channel's publisher: signs with its key, verifies every signed answer. */
    public Publisher publisher() { return publisher; }

    /** The simulator the channel lives on. */
    public RewardsimServer server() { return server; }

    /**
     * Counts this channel's exchanges of endpoint (the journal's operation
     * name, such as {@code fetchCouponCode}) whose request matches every
     * predicate of where (JSON pointer to a value, or to {@code Map.of("regex", "...")}).
     * Nothing is asked until times, atLeast, atMost or never is called.
     */
    public Verification verify(String endpoint, Map<String, ?> where) {
        return new Verification(this, endpoint, where);
    }

    /** Every call of endpoint, whatever its request. */
    public Verification verify(String endpoint) {
        return verify(endpoint, Map.of());
    }

    /**
     * Moves this channel's clock only. Pushes that became due are handed to the simulator's delivery
     * workers and the call returns at once (its {@code becameDue} names them); await them in
     * {@link #webhookInbox()}.
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> advanceClock(Duration by) {
        String d = by.getNano() == 0 ? by.getSeconds() + "s" : by.toMillis() + "ms";
        return (Map<String, Object>) server.control("POST", "/__sim/clock/advance", Map.of("channel", name, "by", d));
    }

    /** This channel's clock ({@code GET /__sim/clock?channel=}). */
    @SuppressWarnings("unchecked")
    public Map<String, Object> clock() {
        return (Map<String, Object>) server.control("GET", "/__sim/clock?channel=" + RewardsimServer.query(name), null);
    }

    /** Adds a fault rule (JSON, docs/scenarios.md#faults) for this channel: its channel is set to this one. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> fault(String ruleJson) {
        Map<String, Object> rule = new LinkedHashMap<>(Json.parseObject(ruleJson));
        rule.put("channel", name);
        return (Map<String, Object>) server.control("POST", "/__sim/faults", rule);
    }

    /**
     * Schedules a coupon-status push to the channel's webhookUrl: offerId, reason, and optional fields.
     * Returns at once, before the push is attempted; await it in {@link #webhookInbox()}.
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

    /** This channel's journal ({@code GET /__sim/journal?channel=}). */
    @SuppressWarnings("unchecked")
    public Map<String, Object> journal() {
        return (Map<String, Object>) server.control("GET", "/__sim/journal?channel=" + RewardsimServer.query(name), null);
    }

    /**
     * A local endpoint on 127.0.0.1, made this channel's webhookUrl: it
     * answers {@code {"status":"OK"}} and keeps every push. One per channel.
     */
    public synchronized WebhookInbox webhookInbox() {
        if (inbox != null) return inbox;
        WebhookInbox in = WebhookInbox.open();
        Map<String, Object> s = new LinkedHashMap<>(spec);
        s.put("webhookUrl", in.url());
        try {
            server.control("POST", "/__sim/channels", s);
        } catch (RuntimeException e) {
            in.close();
            throw e;
        }
        spec = s;
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
