// The whole publisher flow with the Java library (dist/java/rewardsim.jar,
// docs/java.md), as a single-file source program, Java 17+:
//
//   REWARDSIM_URL=http://127.0.0.1:8080 REWARDSIM_CONTROL_URL=http://127.0.0.1:8090 \
//   java -cp ../../dist/java/rewardsim.jar PublisherFlow.java
//
// Without REWARDSIM_URL it starts `rewardsim serve` itself (REWARDSIM_BIN or
// PATH). It makes a channel like DEMOBANK with a key of its own, walks the
// flow (every envelope signed, every signed answer verified by the library),
// provokes one failure of each kind, and exits non-zero at the first step
// that does not answer as the contract says.
import io.github.rewardsim.Channel;
import io.github.rewardsim.Publisher;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

public class PublisherFlow {
    public static void main(String[] args) {
        try (RewardsimServer sim = RewardsimServer.fromEnvironment()) {
            Channel ch = sim.newChannel();
            Publisher pub = ch.publisher();
            check(ch.name().startsWith("T-"), "channel " + ch.name() + " like DEMOBANK", ch);
            String vid = "VU-JAVA-" + System.currentTimeMillis();

            String ref = pub.referenceToken();
            check(ref.length() >= 16, "reference token issued", ref);
            Map<String, Object> reward = pub.getReward(vid, "TXN-" + vid, 250.5);
            check(((List<?>) reward.get("rewards")).size() == 1, "GetReward issues a card", reward);
            String token = pub.userToken(vid);
            List<Map<String, Object>> cards = pub.cards(token);
            check(Boolean.FALSE.equals(cards.get(0).get("isAlreadyRewarded")), "listing shows the unscratched card", cards);
            String rewardId = cards.get(0).get("rewardId").toString();
            Map<String, Object> revealed = pub.reveal(token, vid, rewardId);
            check(Boolean.TRUE.equals(revealed.get("status")), "reveal answers the card, its SIGN verified", revealed);
            check(Boolean.TRUE.equals(pub.cards(token).get(0).get("isAlreadyRewarded")), "listing shows the card revealed", "");
            check(!pub.sessionId(vid).isEmpty(), "session issued", "");
            Map<String, Object> bank = pub.bankCard(vid, "ORD-" + vid);
            check(Boolean.TRUE.equals(bank.get("status")), "bank card issued", bank);
            Map<String, Object> coupon = pub.fetchCoupon("OFFER-DEMO", vid, "CPN-" + vid, 100);
            check(coupon.get("coupon_code") != null, "fetchCouponCode delivers a code", coupon);
            ch.verify("fetchCouponCode", Map.of("/extTransactionId", "CPN-" + vid)).times(1);
            check(true, "verify: fetchCouponCode called once with that extTransactionId", "");

            // Provoked failures, one of each kind, each raised with its reason.
            RewardsimException vip = fails(() -> pub.fetchCoupon("OFFER-VIP", vid, "VIP-" + vid, 500));
            check("NON_ELIGIBLE".equals(vip.errorCode()), "OFFER-VIP answers 403 NON_ELIGIBLE (" + vip.reason() + ")", vip);
            ch.fault("{\"endpoint\":\"GenerateSessionInfoV2\",\"times\":1,\"action\":{\"kind\":\"internal-error\"}}");
            RewardsimException boom = fails(() -> pub.sessionId(vid));
            check("Internal Error!".equals(boom.errorString()), "a fault rule answers Internal Error!", boom);
            ch.advanceClock(Duration.ofHours(1));
            RewardsimException expired = fails(() -> pub.cards(token));
            check(expired.status() == 401, "an hour later on this channel's clock the user token answers HTTP 401", expired);
        }
        System.out.println("java publisher flow: all steps passed");
    }

    static RewardsimException fails(Supplier<?> call) {
        try {
            Object answer = call.get();
            check(false, "a failure answer", answer);
            return null;
        } catch (RewardsimException e) {
            return e;
        }
    }

    static void check(boolean ok, String what, Object detail) {
        if (!ok) {
            System.err.println("FAIL " + what + ": " + detail);
            System.exit(1);
        }
        System.out.println("ok   " + what);
    }
}
