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
        return context.getRoot().getStore(NS)
                .getOrComputeIfAbsent("server", k -> new ServerResource(RewardsimServer.fromEnvironment()), ServerResource.class).server;
    }

    /** The channel of the test class context belongs to. */
    public static Channel channel(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) c = c.getParent().get();
        ExtensionContext classContext = c;
        String like = classContext.getTestClass().map(k -> k.getAnnotation(RewardsimTest.class)).map(RewardsimTest::like).orElse("DEMOBANK");
        return classContext.getStore(NS).getOrComputeIfAbsent("channel:" + classContext.getUniqueId(),
                k -> server(classContext).newChannel(null, like), Channel.class);
    }

    private static final class ServerResource implements ExtensionContext.Store.CloseableResource {
        final RewardsimServer server;

        ServerResource(RewardsimServer server) {
            this.server = server;
        }

        @Override
        public void close() {
            server.close();
        }
    }
}
