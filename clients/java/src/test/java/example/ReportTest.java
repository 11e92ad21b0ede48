package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.Fault;
import io.github.rewardsim.Report;
import io.github.rewardsim.Report.Severity;
import io.github.rewardsim.RewardsimException;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.junit.RewardsimTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

// Issue 51, point 5 (SIM-6): the conformance report from the test, so a suite fails on its
// findings without the CLI.
@RewardsimTest
class ReportTest {
    // A claim whose connection the simulator drops (a timed-out claim, CPN-4), then the retry
    // with retryId: a new extTransactionId is the mistake.
    static void droppedClaimThenRetry(Channel ch, String retryId) {
        ch.fault(Fault.dropConnection().on("fetchCouponCode").times(1));
        assertThrows(RuntimeException.class, () -> ch.publisher().fetchCoupon("OFFER-DEMO", "VU-R", "T-R1", 100));
        ch.publisher().fetchCoupon("OFFER-DEMO", "VU-R", retryId, 100);
    }

    @Test
    void retryWithANewIdIsFoundAndACleanChannelHasNone(RewardsimServer server) {
        Channel planted = server.newChannel();
        Channel clean = server.newChannel();
        droppedClaimThenRetry(planted, "T-R2");
        droppedClaimThenRetry(clean, "T-R1");

        Report r = planted.report();
        assertEquals(planted.name(), r.channel());
        assertEquals(List.of("CPN-4 retry-with-new-ext-transaction-id ERROR x1"),
                r.findings().stream().map(f -> f.clause() + " " + f.id() + " " + f.severity() + " x" + f.count()).toList());
        Report.Finding f = r.findings().get(0);
        assertEquals("POST", f.example().method(), f.toString());
        assertNotNull(f.rule().advice());
        assertEquals(Map.of(Severity.ERROR, 1), r.totals());
        AssertionError failed = assertThrows(AssertionError.class, () -> planted.report(Severity.ERROR));
        assertTrue(failed.getMessage().startsWith("conformance report of channel " + planted.name() + ": 1 finding(s) of severity error or worse"),
                failed.getMessage());
        assertTrue(failed.getMessage().contains("error CPN-4 retry-with-new-ext-transaction-id x1"), failed.getMessage());
        assertThrows(AssertionError.class, () -> server.report(planted.name()).failOn(Severity.ERROR), "by name as by channel");

        Report ok = clean.report(Severity.INFO);
        assertEquals(List.of(), ok.findings());
        assertTrue(ok.exchanges() >= 2, "the clean channel's own exchanges are read: " + ok.exchanges());
        assertTrue(ok.checked().size() > 10, "every rule is listed as checked: " + ok.checked());
    }

    @Test
    void failOnFailsAtThatSeverityOrWorse(RewardsimServer server) {
        Channel ch = server.newChannel();
        for (int i = 0; i < 5; i++) ch.publisher().referenceToken(); // more than 4 an hour: a TOK-5 warning
        Report r = ch.report(Severity.ERROR);
        assertEquals(List.of("TOK-5 WARNING"), r.findings().stream().map(f -> f.clause() + " " + f.severity()).toList());
        AssertionError failed = assertThrows(AssertionError.class, () -> ch.report(Severity.WARNING));
        assertTrue(failed.getMessage().contains("warning TOK-5 reference-token-per-request"), failed.getMessage());
        assertEquals(List.of(), server.report(ch.name(), 5).findings(Severity.INFO), "the threshold moved: no finding");
        RewardsimException bad = assertThrows(RewardsimException.class, () -> server.report(ch.name(), -1));
        assertEquals(400, bad.status(), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Severity.of("fatal"));
    }
}
