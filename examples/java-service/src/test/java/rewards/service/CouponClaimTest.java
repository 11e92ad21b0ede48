package rewards.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.github.rewardsim.Channel;
import io.github.rewardsim.Fault;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.junit.RewardsimExtension;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

// Configured in code: a fresh channel for every test method.
class CouponClaimTest {
    static final String PREFIX = "partner.rewards";

    @RegisterExtension
    static RewardsimExtension rewardsim = RewardsimExtension.builder().channelPerMethod().build();

    RewardsService service;

    @BeforeAll
    static void bothClassesAtOnce() throws InterruptedException {
        Together.arrive();
    }

    @BeforeEach
    void startService(Channel ch) {
        Map<String, String> props = new LinkedHashMap<>(ch.serviceProperties(PREFIX));
        props.put(PREFIX + ".timeout-ms", "1000");
        service = new RewardsService(props, PREFIX);
        service.credit("VU-C", 500);
    }

    @AfterEach
    void stopService() {
        service.close();
    }

    @Test
    void aClaimCommittedThenDroppedIsSentAgainWithTheSameId(Channel ch) {
        ch.fault(Fault.commitThenDrop().times(1));
        RewardsService.Claim c = service.redeem("VU-C", "OFFER-DEMO", "CLM-DROP", 100);
        assertTrue(c.delivered(), c.toString());
        assertEquals(2, c.attempts());
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "CLM-DROP")).times(2);
        List<Map<String, Object>> sent = ch.findAll("fetchCouponCode");
        assertEquals(List.of("CLM-DROP", "CLM-DROP"), sent.stream().map(r -> r.get("extTransactionId")).toList());
        assertEquals(1, ch.publisher().userCoupons("VU-C").size(), "one coupon, not two");
        assertEquals(400, service.coins("VU-C"));
    }

    @Test
    void aClaimThatTimesOutIsSentAgainWithTheSameId(Channel ch) {
        ch.fault(Fault.commitThenDelay(Duration.ofSeconds(30)).times(1));
        RewardsService.Claim c = service.redeem("VU-C", "OFFER-DEMO", "CLM-SLOW", 100);
        assertTrue(c.delivered(), c.toString());
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "CLM-SLOW")).times(2);
        assertEquals(1, ch.publisher().userCoupons("VU-C").size());
    }

    @Test
    void stockOutIsFinalAndRefunds(Channel ch) {
        long mark = ch.mark();
        ch.fault(Fault.couponError(Fault.COUPON_EXHAUSTED).on("fetchCouponCode").times(1));
        RewardsService.Claim c = service.redeem("VU-C", "OFFER-DEMO", "CLM-OUT", 100);
        assertFalse(c.delivered());
        assertEquals("COUPON_EXHAUSTED", c.errorCode());
        ch.verify("fetchCouponCode").since(mark).times(1);
        assertEquals(500, service.coins("VU-C"));
    }

    @Test
    void theUsersLimitIsFinalAndRefunds(Channel ch) {
        ch.fault(Fault.couponError(Fault.MAX_LIMIT_REACHED).on("fetchCouponCode").times(1));
        RewardsService.Claim c = service.redeem("VU-C", "OFFER-DEMO", "CLM-MAX", 100);
        assertEquals("MAX_LIMIT_REACHED", c.errorCode());
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "CLM-MAX")).times(1);
        assertEquals(500, service.coins("VU-C"));
    }

    @Test
    void theLibrarysOwnPublisherStillWorksOnAnotherChannel(RewardsimServer server) {
        Channel other = server.newChannel();
        Map<String, Object> coupon = other.publisher().fetchCoupon("OFFER-DEMO", "VU-LIB", "LIB-1", 100);
        assertTrue(coupon.get("coupon_code") instanceof String, coupon.toString());
        other.verify("fetchCouponCode", Map.of("/extTransactionId", "LIB-1")).times(1);
    }

    // This project has the packed jars only: no Go toolchain, no binary setting. (Under
    // rewardsim sweep the simulator is the sweep's: nothing was extracted.)
    @Test
    void theSimulatorCameFromThePlatformArtefact() throws Exception {
        assumeFalse(RewardsimServer.underSweep(), "the sweep's simulator");
        assertNull(System.getenv("REWARDSIM_BIN"));
        assertNull(System.getProperty("rewardsim.bin"));
        for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
            assertFalse(Files.isExecutable(Path.of(dir, "go")), "go on PATH at " + dir);
            assertFalse(Files.isExecutable(Path.of(dir, "rewardsim")), "rewardsim on PATH at " + dir);
        }
        String cache = System.getenv("REWARDSIM_CACHE");
        assertTrue(cache != null, "REWARDSIM_CACHE names this run's cache folder");
        try (var cached = Files.walk(Path.of(cache))) {
            assertTrue(cached.anyMatch(p -> p.getFileName().toString().equals("rewardsim")), "extracted to the cache");
        }
    }
}
