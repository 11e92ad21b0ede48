package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.Latency;
import io.github.rewardsim.Publisher;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.WebhookInbox;
import io.github.rewardsim.junit.RewardsimTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

// The surface of issue 21, written as a publisher's test class would be.
@RewardsimTest
class CouponTest {
    @BeforeAll
    static void bothClassesAtOnce() throws InterruptedException {
        Together.arrive();
    }

    // The same extTransactionId as CardTest's claim: each class counts only its own channel's call.
    @Test
    void claimOnce(Channel ch) throws Exception {
        Publisher pub = ch.publisher();
        Map<String, Object> coupon = pub.fetchCoupon("OFFER-DEMO", "VU-1", "T-1", 100);
        assertNotNull(coupon.get("coupon_code"), coupon.toString());
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "T-1")).times(1);
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", Map.of("regex", "^T-"))).atLeast(1);
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "T-1")).atMost(1);
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "NOPE")).never();

        AssertionError miss = assertThrows(AssertionError.class,
                () -> ch.verify("fetchCouponCode", Map.of("/extTransactionId", "T-2")).times(1));
        assertTrue(miss.getMessage().contains("counted 0"), miss.getMessage());
        assertTrue(miss.getMessage().contains("near misses"), miss.getMessage());
        assertTrue(miss.getMessage().contains("T-1"), "the near miss names the call that came closest: " + miss.getMessage());
    }

    @Test
    void clockOfOneChannel(Channel ch, RewardsimServer server) {
        Channel other = server.newChannel();
        String mine = ch.publisher().userToken("VU-CLOCK");
        String theirs = other.publisher().userToken("VU-CLOCK");
        ch.advanceClock(Duration.ofHours(1)); // beyond the 30-minute user token
        RewardsimException expired = assertThrows(RewardsimException.class, () -> ch.publisher().cards(mine));
        assertEquals(401, expired.status(), expired.getMessage());
        assertEquals(List.of(), other.publisher().cards(theirs), "the other channel's clock did not move");
        assertNotEquals(ch.clock().get("now"), other.clock().get("now"));
    }

    @Test
    void failureRaisedWithReason(Channel ch) {
        RewardsimException vip = assertThrows(RewardsimException.class,
                () -> ch.publisher().fetchCoupon("OFFER-VIP", "VU-2", "T-VIP", 500));
        assertEquals("NON_ELIGIBLE", vip.errorCode(), vip.getMessage());
        assertNotNull(vip.reason(), "X-Rewardsim-Reason");

        ch.fault("{\"endpoint\":\"GenerateSessionInfoV2\",\"times\":1,\"action\":{\"kind\":\"internal-error\"}}");
        RewardsimException boom = assertThrows(RewardsimException.class, () -> ch.publisher().sessionId("VU-2"));
        assertEquals("Internal Error!", boom.errorString(), boom.getMessage());
        assertNotNull(boom.reason(), "X-Rewardsim-Reason");
        assertNotNull(ch.publisher().sessionId("VU-2"), "a one-shot fault fires once");
    }

    @Test
    void webhookToTheInbox(Channel ch) {
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-3", "T-3", 100);
        WebhookInbox inbox = ch.webhookInbox();
        ch.webhook(Map.of("offerId", "OFFER-DEMO", "reason", "OUT_OF_STOCK"));
        Map<String, Object> push = inbox.await("COUPON_INVALIDATED", Duration.ofSeconds(10));
        assertEquals(ch.name(), push.get("channelName"), push.toString());
        assertEquals("OUT_OF_STOCK", push.get("reason"), push.toString());
        Map<String, Object> coupon = ch.publisher().userCoupons("VU-3", "OFFER-DEMO").get(0);
        assertEquals("invalidated", coupon.get("state"), coupon.toString());
    }

    // Issue 53 item 1: a latency profile from the test, on the channel alone.
    @Test
    void latencyOfOneChannel(Channel ch, RewardsimServer server) {
        Channel other = server.newChannel();
        Map<String, Object> set = ch.latency(Latency.fixed(Duration.ofMillis(300)).on("getCatalogue"));
        assertEquals("300ms", set.get("fixed"), set.toString());
        long t0 = System.nanoTime();
        ch.publisher().catalogue();
        assertTrue(System.nanoTime() - t0 >= 300_000_000L, "the profiled channel answered within 300ms");
        t0 = System.nanoTime();
        other.publisher().catalogue();
        assertTrue(System.nanoTime() - t0 < 250_000_000L, "another channel was held too");
        RewardsimException bad = assertThrows(RewardsimException.class, () -> ch.latency(Latency.fixed(Duration.ofMillis(1)).on("getCatalog")));
        assertTrue(bad.getMessage().contains("did you mean getCatalogue?"), bad.getMessage());
        assertEquals(1, ((List<?>) server.removeLatency(null, ch.name()).get("removed")).size());
    }
}
