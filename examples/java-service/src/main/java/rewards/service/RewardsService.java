package rewards.service;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import rewards.service.PartnerClient.PartnerException;

/**
 * A small publisher service: a payment issues a scratch card, the user reveals it, and burns
 * coins for a coupon; the partner's coupon-status pushes arrive at its webhook endpoint. It is
 * configured only from properties ({@link PartnerConfig}), as it would be in production.
 */
public final class RewardsService implements AutoCloseable {
    /** How many times a coupon claim is sent in all when the partner does not answer. */
    static final int CLAIM_ATTEMPTS = 3;

    private final PartnerClient partner;
    private final Map<String, Integer> coins = new ConcurrentHashMap<>();
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final List<Map<String, Object>> pushes = new CopyOnWriteArrayList<>();
    private final Map<String, Boolean> seenPushes = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
    private final HttpServer webhook;
    private final ExecutorService pushWorkers = Executors.newFixedThreadPool(4);

    /** What a coupon claim came to. */
    public record Claim(boolean delivered, String couponCode, String errorCode, int attempts) {}

    /**
     * Starts the service's webhook endpoint on a free loopback port.
     *
     * @param props the configuration
     * @param prefix the properties' prefix, such as partner.rewards
     */
    public RewardsService(Map<String, String> props, String prefix) {
        this.partner = new PartnerClient(PartnerConfig.from(props, prefix));
        try {
            webhook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        webhook.createContext("/hooks/coupon-status", ex -> {
            byte[] reply = "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8);
            int status = 200;
            try {
                Map<String, Object> push = MiniJson.object(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                received.incrementAndGet();
                // The partner may send one event more than once (same referenceId): act on it once.
                if (seenPushes.putIfAbsent(String.valueOf(push.get("referenceId")), true) == null) pushes.add(push);
            } catch (RuntimeException e) {
                status = 400;
                reply = "{\"status\":\"BAD_REQUEST\"}".getBytes(StandardCharsets.UTF_8);
            }
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, reply.length);
            ex.getResponseBody().write(reply);
            ex.close();
        });
        webhook.setExecutor(pushWorkers);
        webhook.start();
    }

    /** @return where the partner should push coupon-status events */
    public String webhookUrl() {
        return "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hooks/coupon-status";
    }

    /** @return how many pushes arrived, repeats included */
    public int pushesReceived() {
        return received.get();
    }

    /** @return every distinct push (by referenceId) received, in order */
    public List<Map<String, Object>> pushes() {
        return List.copyOf(pushes);
    }

    /**
     * A payment: the partner may issue a scratch card for it.
     *
     * @param virtualId the paying user
     * @param txnId the payment's id
     * @param amount the amount paid
     * @return the issued card's rewardId, or null when none was issued
     */
    public String pay(String virtualId, String txnId, double amount) throws IOException {
        Map<String, Object> r = partner.getReward(virtualId, txnId, amount);
        if (r.get("rewards") instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof Map<?, ?> card) {
            return String.valueOf(card.get("rewardId"));
        }
        return null;
    }

    /**
     * Reveals a card with the user's cached token, fetching a new one once when it expired (401).
     *
     * @param virtualId the user
     * @param rewardId the card
     * @return the card's decoded details
     */
    public Map<String, Object> reveal(String virtualId, String rewardId) throws IOException {
        String token = tokens.computeIfAbsent(virtualId, this::freshToken);
        try {
            return partner.reveal(token, virtualId, rewardId);
        } catch (PartnerException e) {
            if (e.status != 401) throw e;
            token = freshToken(virtualId);
            tokens.put(virtualId, token);
            return partner.reveal(token, virtualId, rewardId);
        }
    }

    private String freshToken(String virtualId) {
        try {
            return partner.userToken(virtualId);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Credits coins to a user (a payment's cashback, say).
     *
     * @param virtualId the user
     * @param n how many
     */
    public void credit(String virtualId, int n) {
        coins.merge(virtualId, n, Integer::sum);
    }

    /**
     * The user's balance.
     *
     * @param virtualId the user
     * @return the user's coins
     */
    public int coins(String virtualId) {
        return coins.getOrDefault(virtualId, 0);
    }

    /**
     * Burns the coins, then claims the coupon under txnId. A claim left unanswered (a timeout, a
     * dropped connection) is sent again with the same txnId, which the partner treats as the
     * same claim; COUPON_EXHAUSTED and MAX_LIMIT_REACHED are final: no retry, coins refunded.
     *
     * @param virtualId the user
     * @param offerId the offer
     * @param txnId the claim's id, the same on every attempt
     * @param cost the coins it burns
     * @return the outcome
     */
    public Claim redeem(String virtualId, String offerId, String txnId, int cost) {
        if (coins.merge(virtualId, -cost, Integer::sum) < 0) {
            coins.merge(virtualId, cost, Integer::sum);
            return new Claim(false, null, "NOT_ENOUGH_COINS", 0);
        }
        for (int attempt = 1;; attempt++) {
            try {
                Map<String, Object> coupon = partner.fetchCoupon(offerId, virtualId, txnId, cost);
                return new Claim(true, String.valueOf(coupon.get("coupon_code")), null, attempt);
            } catch (PartnerException e) {
                coins.merge(virtualId, cost, Integer::sum);
                return new Claim(false, null, e.code, attempt);
            } catch (IOException e) {
                if (attempt == CLAIM_ATTEMPTS) {
                    // Unknown outcome: keep the coins burnt; a reconciliation (getUserCoupons) settles it.
                    return new Claim(false, null, "UNANSWERED", attempt);
                }
            }
        }
    }

    @Override
    public void close() {
        webhook.stop(0);
        pushWorkers.shutdownNow();
    }
}
