package io.github.rewardsim.junit;

import io.github.rewardsim.Channel;
import io.github.rewardsim.ChannelSpec;
import io.github.rewardsim.RewardsimServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension: a simulator shared by every class of the run that asks for the same
 * one, and a fresh {@link Channel} per test class (or per test method with
 * {@link Builder#channelPerMethod()}), injected into test, lifecycle and constructor parameters
 * (as is the {@link RewardsimServer}). {@link RewardsimTest} registers it with the defaults;
 * configure it in code with {@link #builder()}:
 *
 * <pre>{@code
 * @RegisterExtension
 * static RewardsimExtension rewardsim = RewardsimExtension.builder()
 *     .scenario(Path.of("src/test/resources/rewards.yaml"))
 *     .channelPerMethod()
 *     .build();
 * }</pre>
 *
 * <p>Under {@code rewardsim sweep} it attaches to the sweep's simulator, names each channel it
 * makes after its test class (or {@code Class#method}) in REWARDSIM_SWEEP_CHANNELS, and runs only
 * the classes and methods REWARDSIM_SWEEP_TESTS lists when that is set (those that called the
 * row's faulted endpoint in the sweep's baseline): with Surefire, Gradle or the console launcher
 * alike, nothing to configure.
 */
public final class RewardsimExtension implements ParameterResolver, ExecutionCondition, BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RewardsimExtension.class);

    private final Builder config;

    /** The defaults: the simulator of {@link RewardsimServer#fromEnvironment()}, one channel per class. */
    public RewardsimExtension() {
        this(new Builder());
    }

    private RewardsimExtension(Builder config) {
        this.config = config;
    }

    /** @return a builder of an extension configured in code */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext context) {
        Class<?> t = p.getParameter().getType();
        return t == Channel.class || t == RewardsimServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext context) {
        if (p.getParameter().getType() == RewardsimServer.class) return server(context);
        return channel(context);
    }

    /**
     * The simulator of this extension's configuration, started (or attached) once per JUnit run.
     *
     * @param context any context of the run
     * @return the simulator
     */
    public RewardsimServer server(ExtensionContext context) {
        Held<?> held = context.getRoot().getStore(NS).getOrComputeIfAbsent("server:" + config.key(), k -> {
            RewardsimServer s = config.open();
            return new Held<>(s, s::close);
        }, Held.class);
        return (RewardsimServer) held.value();
    }

    /**
     * The channel of the test class (or, with channelPerMethod, of the test method) context belongs to.
     *
     * @param context the test's context
     * @return the channel
     */
    public Channel channel(ExtensionContext context) {
        ExtensionContext c = context;
        boolean method = config.perMethod && c.getTestMethod().isPresent();
        if (!method) {
            while (c.getTestMethod().isPresent() && c.getParent().isPresent()) c = c.getParent().get();
        }
        ExtensionContext owner = c;
        String like = config.like != null ? config.like
                : owner.getTestClass().map(k -> k.getAnnotation(RewardsimTest.class)).map(RewardsimTest::like).filter(s -> !s.isEmpty()).orElse(null);
        Held<?> held = owner.getStore(NS).getOrComputeIfAbsent("channel:" + owner.getUniqueId(), k -> {
            Channel ch = server(owner).newChannel(ChannelSpec.like(like).test(testName(owner)));
            return new Held<>(ch, ch::closeInbox);
        }, Held.class);
        return (Channel) held.value();
    }

    /**
     * Under {@code rewardsim sweep} with REWARDSIM_SWEEP_TESTS set, runs only the test classes
     * and methods it lists (comma-separated: a class's binary name runs all of it,
     * {@code Class#method} that method); otherwise every test.
     *
     * @param context the test class's or method's context
     * @return enabled or disabled, and why
     */
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String only = System.getenv("REWARDSIM_SWEEP_TESTS");
        if (only == null || only.isBlank() || context.getTestClass().isEmpty()) return ConditionEvaluationResult.enabled("every test runs");
        List<String> tests = Arrays.stream(only.split(",")).map(String::trim).toList();
        String cls = context.getRequiredTestClass().getName();
        boolean run = tests.contains(cls) || context.getTestMethod()
                .map(m -> tests.contains(cls + "#" + m.getName()))
                .orElseGet(() -> tests.stream().anyMatch(t -> t.startsWith(cls + "#") || t.startsWith(cls + "$")));
        return run ? ConditionEvaluationResult.enabled("REWARDSIM_SWEEP_TESTS lists it")
                : ConditionEvaluationResult.disabled("rewardsim sweep: it did not call the row's faulted endpoint in the baseline (REWARDSIM_SWEEP_TESTS)");
    }

    /**
     * Names the running test class to {@code rewardsim sweep}: a channel a test makes itself
     * ({@code server.newChannel()}) belongs to it.
     *
     * @param context the test class's context
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        RewardsimServer.runningTest(context.getRequiredTestClass().getName());
    }

    /**
     * Names the running test method to {@code rewardsim sweep}.
     *
     * @param context the test method's context
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        RewardsimServer.runningTest(testName(context));
    }

    /**
     * The test method ended: its class runs on.
     *
     * @param context the test method's context
     */
    @Override
    public void afterEach(ExtensionContext context) {
        RewardsimServer.runningTest(context.getRequiredTestClass().getName());
    }

    // The test a channel is for, as REWARDSIM_SWEEP_TESTS names it.
    private static String testName(ExtensionContext owner) {
        String cls = owner.getRequiredTestClass().getName();
        return owner.getTestMethod().map(m -> cls + "#" + m.getName()).orElse(cls);
    }

    /** The configuration of a {@link RewardsimExtension}. */
    public static final class Builder {
        private Path scenario;
        private String publicUrl;
        private String controlUrl;
        private String binary;
        private final List<String> flags = new ArrayList<>();
        private boolean perMethod;
        private String like;

        private Builder() {}

        /**
         * Starts the simulator with this scenario file ({@code serve --scenario}).
         *
         * @param file the scenario
         * @return this builder
         */
        public Builder scenario(Path file) {
            this.scenario = file;
            return this;
        }

        /**
         * Uses a running simulator instead of starting one. Both URLs are needed: the control
         * URL is never guessed from the public one.
         *
         * @param publicUrl its public URL
         * @param controlUrl its control API's URL
         * @return this builder
         */
        public Builder attach(String publicUrl, String controlUrl) {
            this.publicUrl = publicUrl;
            this.controlUrl = controlUrl;
            return this;
        }

        /**
         * The rewardsim binary to start, before REWARDSIM_BIN, the platform artefact and PATH.
         *
         * @param file the binary
         * @return this builder
         */
        public Builder binary(Path file) {
            this.binary = file.toString();
            return this;
        }

        /**
         * More flags of {@code rewardsim serve}.
         *
         * @param more such as {@code "--clock", "2026-01-01T00:00:00Z"}
         * @return this builder
         */
        public Builder flags(String... more) {
            flags.addAll(Arrays.asList(more));
            return this;
        }

        /**
         * One fresh channel per test method (default: one per test class).
         *
         * @return this builder
         */
        public Builder channelPerMethod() {
            this.perMethod = true;
            return this;
        }

        /**
         * The channel new channels are made like (default: REWARDSIM_LIKE, else DEMOBANK).
         *
         * @param channel the channel to copy
         * @return this builder
         */
        public Builder like(String channel) {
            this.like = channel;
            return this;
        }

        /** @return the extension, for a static {@code @RegisterExtension} field */
        public RewardsimExtension build() {
            if ((publicUrl != null || controlUrl != null) && (scenario != null || binary != null || !flags.isEmpty())) {
                throw new IllegalStateException("attach uses a running simulator: scenario, binary and flags start one; give one or the other");
            }
            return new RewardsimExtension(this);
        }

        // Extensions of the same configuration share one simulator.
        private String key() {
            return publicUrl + "|" + controlUrl + "|" + scenario + "|" + binary + "|" + flags;
        }

        private RewardsimServer open() {
            if (publicUrl != null || controlUrl != null) return RewardsimServer.attach(publicUrl, controlUrl);
            if (scenario == null && binary == null && flags.isEmpty()) return RewardsimServer.fromEnvironment();
            List<String> args = new ArrayList<>(flags);
            Optional.ofNullable(scenario).ifPresent(s -> args.addAll(List.of("--scenario", s.toAbsolutePath().toString())));
            return RewardsimServer.start(binary, args);
        }
    }

    // A store value closed with its context: the simulator with the run,
    // a channel's webhook inbox with its class or method (the channel
    // stays registered: its journal is there to read after a failure).
    private record Held<T>(T value, Runnable onClose) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            onClose.run();
        }
    }
}
