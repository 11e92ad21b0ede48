package io.github.rewardsim.junit;

import io.github.rewardsim.Channel;
import io.github.rewardsim.RewardsimServer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The extension behind {@link RewardsimTest}: the simulator lives in the
 * root context's store (closed when the JUnit run ends), the channel in the
 * test class's.
 */
public final class RewardsimExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RewardsimExtension.class);

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

    /** The simulator of this JUnit run. */
    public static RewardsimServer server(ExtensionContext context) {
        Held<?> held = context.getRoot().getStore(NS).getOrComputeIfAbsent("server", k -> {
            RewardsimServer s = RewardsimServer.fromEnvironment();
            return new Held<>(s, s::close);
        }, Held.class);
        return (RewardsimServer) held.value();
    }

    /** The channel of the test class context belongs to. */
    public static Channel channel(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) c = c.getParent().get();
        ExtensionContext classContext = c;
        String like = classContext.getTestClass().map(k -> k.getAnnotation(RewardsimTest.class)).map(RewardsimTest::like).orElse("DEMOBANK");
        Held<?> held = classContext.getStore(NS).getOrComputeIfAbsent("channel:" + classContext.getUniqueId(), k -> {
            Channel ch = server(classContext).newChannel(null, like);
            return new Held<>(ch, ch::closeInbox);
        }, Held.class);
        return (Channel) held.value();
    }

    // A store value closed with its context: the simulator with the run,
    // a channel's webhook inbox with its class (the channel stays
    // registered: its journal is there to read after a failure).
    private record Held<T>(T value, Runnable onClose) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            onClose.run();
        }
    }
}
