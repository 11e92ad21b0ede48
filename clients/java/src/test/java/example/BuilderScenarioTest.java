package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rewardsim.Channel;
import io.github.rewardsim.RewardsimServer;
import io.github.rewardsim.junit.RewardsimExtension;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

// The extension configured in code: a simulator of its own, started with a scenario file, and a
// channel per test method.
class BuilderScenarioTest {
    @RegisterExtension
    static RewardsimExtension rewardsim = RewardsimExtension.builder()
            .scenario(scenario())
            .flags("--log-level", "warn")
            .channelPerMethod()
            .build();

    static Path scenario() {
        try {
            return Path.of(BuilderScenarioTest.class.getResource("/builder-scenario.yaml").toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Channel first;

    @Test
    void theScenarioGovernsTheChannel(Channel ch, RewardsimServer server) {
        Map<?, ?> info = (Map<?, ?>) server.control("GET", "/__sim/channels/" + ch.name(), null);
        assertTrue(String.valueOf(info.get("scenario")).startsWith("java-builder"), info.toString());
        assertEquals("library", info.get("keyOrigin"), info.toString());
        note(ch);
    }

    @Test
    void eachMethodHasItsOwnChannel(Channel ch) {
        note(ch);
    }

    static synchronized void note(Channel ch) {
        assertNotNull(ch);
        if (first == null) first = ch;
        else assertNotEquals(first.name(), ch.name(), "channelPerMethod gives each method a channel");
    }
}
