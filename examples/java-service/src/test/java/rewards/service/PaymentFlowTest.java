package rewards.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.github.rewardsim.Channel;
import io.github.rewardsim.junit.RewardsimTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

// The service under test is ours; the simulator and its channel come from the library.
@RewardsimTest
class PaymentFlowTest {
    static final String PREFIX = "partner.rewards";
    static RewardsService service;

    @BeforeAll
    static void startService(Channel ch) throws InterruptedException {
        Together.arrive();
        service = new RewardsService(ch.serviceProperties(PREFIX), PREFIX);
        ch.setWebhookUrl(service.webhookUrl());
    }

    @AfterAll
    static void stopService() {
        service.close();
    }

    @Test
    void aPaymentIssuesACardTheUserReveals(Channel ch) throws Exception {
        String rewardId = service.pay("VU-PAY", "PAY-1", 250.5);
        assertNotNull(rewardId, "a card was issued");
        Map<String, Object> card = service.reveal("VU-PAY", rewardId);
        assertEquals(Boolean.TRUE, card.get("status"), card.toString());
        ch.verify("GetReward", Map.of("/extTransactionId", "PAY-1", "/amount", 250.5)).times(1);
        ch.verify("FetchRewardInfo", Map.of("/rewardId", rewardId)).times(1);
    }

    @Test
    void anExpiredUserTokenIsFetchedAgainOnce(Channel ch) throws Exception {
        String first = service.pay("VU-TOKEN", "PAY-2", 300);
        String second = service.pay("VU-TOKEN", "PAY-3", 300);
        service.reveal("VU-TOKEN", first); // caches the user token
        ch.advanceClock(Duration.ofHours(1)); // beyond the token's 30 minutes, on this channel only
        long mark = ch.mark();
        Map<String, Object> card = service.reveal("VU-TOKEN", second);
        assertEquals(Boolean.TRUE, card.get("status"), card.toString());
        ch.verify("GetAuthToken", Map.of("/virtualId", "VU-TOKEN")).since(mark).times(1);
        ch.verify("FetchRewardInfo", Map.of("/rewardId", second)).since(mark).times(2);
    }

    @Test
    void aPushStormReachesTheWebhookEndpointAndRepeatsCountOnce(Channel ch) throws Exception {
        int events = 15;
        for (int i = 0; i < events; i++) ch.webhook(Map.of("offerId", "OFFER-DEMO", "reason", "OUT_OF_STOCK", "repeat", 2));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (service.pushesReceived() < 2 * events && System.nanoTime() < deadline) Thread.sleep(50);
        assertEquals(2 * events, service.pushesReceived(), "every push arrived");
        List<Map<String, Object>> pushes = service.pushes();
        assertEquals(events, pushes.size(), pushes.toString());
        for (Map<String, Object> p : pushes) assertEquals(ch.name(), p.get("channelName"), p.toString());
    }
}
