package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.Fault;
import io.github.rewardsim.Limit;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.junit.RewardsimTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

// Issue 53, item 2 (CAP-1): a channel held to a capacity limit from the test.
@RewardsimTest
class LimitTest {
    @SuppressWarnings("unchecked")
    private static long stat(Channel ch, String name) {
        return ((Number) ((Map<String, Object>) ch.limits().get("stats")).get(name)).longValue();
    }

    // One method: the class's tests share its channel, and each limit is the channel's.
    @Test
    void refusedOverTheLimitThenAWaitingCallGoesIn(Channel ch, RewardsimServer sim) {
        Channel other = sim.newChannel();
        Map<String, Object> st = ch.limit(Limit.perSecond(0.001).burst(1));
        assertEquals("run-time", st.get("source"), st.toString());
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-L1", "T-L1", 100);
        RewardsimException refused = assertThrows(RewardsimException.class, () -> ch.publisher().fetchCoupon("OFFER-DEMO", "VU-L2", "T-L2", 100));
        assertEquals(503, refused.status(), refused.getMessage());
        assertEquals("INTERNAL_ERROR", refused.errorCode(), refused.getMessage());
        other.publisher().fetchCoupon("OFFER-DEMO", "VU-L3", "T-L3", 100);
        assertNull(other.limits());
        assertEquals(1, stat(ch, "refused"));
        RewardsimException bad = assertThrows(RewardsimException.class, () -> ch.limit(Limit.inFlight(1).waitUpTo(Duration.ofMinutes(6))));
        assertEquals(400, bad.status(), bad.getMessage());
        assertTrue(bad.getMessage().contains("wait"), bad.getMessage());
        ch.removeLimit();
        assertNull(ch.limits());
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-L4", "T-L4", 100);

        ch.limit(Limit.inFlight(1).waitUpTo(Duration.ofSeconds(5)));
        ch.fault(Fault.delay(Duration.ofMillis(200)).on("fetchCouponCode").times(2));
        List<CompletableFuture<Map<String, Object>>> claims = List.of("T-W1", "T-W2").stream()
                .map(tx -> CompletableFuture.supplyAsync(() -> ch.publisher().fetchCoupon("OFFER-DEMO", "VU-" + tx, tx, 100)))
                .toList();
        claims.forEach(CompletableFuture::join);
        assertEquals(2, stat(ch, "admitted"));
        assertEquals(1, stat(ch, "waited"));
        assertEquals(0, stat(ch, "refused"));
        ch.removeLimit();
    }
}
