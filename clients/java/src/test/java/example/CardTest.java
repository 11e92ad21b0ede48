package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.Publisher;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.Switch;
import io.github.rewardsim.junit.RewardsimTest;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@RewardsimTest
class CardTest {
    @BeforeAll
    static void bothClassesAtOnce() throws InterruptedException {
        Together.arrive();
    }

    @Test
    void sameTransactionIdOtherChannel(Channel ch) {
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-1", "T-1", 100);
        ch.verify("fetchCouponCode", Map.of("/extTransactionId", "T-1")).times(1);
    }

    // Issue 52: a behaviour switch set for this channel without YAML, refused values named
    // before any call, and the scenario's reading back on reset.
    @Test
    void switchWithoutYaml(Channel ch) {
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-SW", "T-SW", 100);
        Map<String, Object> sw = ch.setSwitch(Switch.COUPONS_DUPLICATE, "reject");
        assertEquals("reject", sw.get("override"), sw.toString());
        assertEquals("original", sw.get("scenario"), sw.toString());
        RewardsimException dup = assertThrows(RewardsimException.class, () -> ch.publisher().fetchCoupon("OFFER-DEMO", "VU-SW", "T-SW", 100));
        assertEquals("DUPLICATE_TRANSACTION", dup.errorCode(), dup.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> ch.setSwitch(Switch.COUPONS_DUPLICATE, "replay"));
        assertTrue(bad.getMessage().contains("it takes original, reject"), bad.getMessage());
        assertEquals(List.of("switches.coupons.duplicate"), ch.resetSwitch(Switch.COUPONS_DUPLICATE).get("reset"));
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-SW", "T-SW", 100);
    }

    @Test
    void cardFlow(Channel ch) {
        Publisher pub = ch.publisher();
        Map<String, Object> reward = pub.getReward("VU-CARD", "TXN-CARD", 250.5);
        assertEquals(1, ((List<?>) reward.get("rewards")).size(), reward.toString());
        String token = pub.userToken("VU-CARD");
        List<Map<String, Object>> cards = pub.cards(token);
        assertEquals(Boolean.FALSE, cards.get(0).get("isAlreadyRewarded"));
        String rewardId = cards.get(0).get("rewardId").toString();
        Map<String, Object> revealed = pub.reveal(token, "VU-CARD", rewardId);
        assertEquals(Boolean.TRUE, revealed.get("status"), revealed.toString());
        RewardsimException again = assertThrows(RewardsimException.class, () -> pub.reveal(token, "VU-CARD", rewardId));
        assertTrue(again.reason() != null && !again.reason().isEmpty(), again.getMessage());
        ch.verify("FetchRewardInfo", Map.of("/virtualId", "VU-CARD")).times(2);
        ch.verify("GetReward", Map.of("/extTransactionId", "TXN-CARD", "/amount", 250.5)).times(1);

        assertTrue(pub.sessionId("VU-CARD").length() > 0);
        Map<String, Object> bank = pub.bankCard("VU-CARD", "ORD-CARD");
        assertEquals(Boolean.TRUE, bank.get("status"), bank.toString());

        pub.fetchCoupon("OFFER-DEMO", "VU-CARD", "T-CARD", 100);
        assertEquals(1, pub.userCoupons("VU-CARD").size());
        ch.reset(); // this channel's state and journal only
        assertEquals(List.of(), pub.userCoupons("VU-CARD"));
        ch.verify("FetchRewardInfo").never();
    }

    @Test
    void aSimulatorThatCannotStartSaysWhatToSet() {
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> RewardsimServer.start("/nonexistent/rewardsim", List.of()));
        assertTrue(e.getMessage().contains("REWARDSIM_BIN"), e.getMessage());
    }
}
