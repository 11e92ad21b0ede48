package rewards.service;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Proves the two test classes run at the same time: each waits for the other to start. */
final class Together {
    private static final CountDownLatch STARTED = new CountDownLatch(2);

    static void arrive() throws InterruptedException {
        // A rewardsim sweep row may run one class alone (REWARDSIM_SWEEP_TESTS): none to wait for.
        String only = System.getenv("REWARDSIM_SWEEP_TESTS");
        if (only != null && !only.isEmpty()) return;
        STARTED.countDown();
        assertTrue(STARTED.await(60, TimeUnit.SECONDS), "the other test class did not start alongside this one");
    }

    private Together() {}
}
