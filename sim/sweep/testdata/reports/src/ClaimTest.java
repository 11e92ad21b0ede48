package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

// A suite as the sweep reads its report: one passing test, one that
// asserts an exact call count and fails, one that throws, one skipped.
class ClaimTest {
    @Test
    void passes() {}

    @Test
    void countedExactly() {
        assertEquals(2, 3, "fetchCouponCode calls");
    }

    @Test
    void errors() {
        throw new IllegalStateException("the service broke");
    }

    @Test
    @Disabled("not today")
    void skipped() {}

    @Nested
    class Reveal {
        @Test
        void revealsOnce() {}
    }
}
