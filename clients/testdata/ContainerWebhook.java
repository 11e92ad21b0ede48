// A push from the simulator in a container to a service on this machine
// (issue 51, item 6), through the Java library's RewardsimContainer:
// run by clients/java_test.go (TestJavaContainerWebhook) with the
// repository's engine, as java -cp rewardsim.jar ContainerWebhook.java.
import com.sun.net.httpserver.HttpServer;
import io.github.rewardsim.Channel;
import io.github.rewardsim.Json;
import io.github.rewardsim.RewardsimContainer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

public class ContainerWebhook {
    public static void main(String[] args) throws Exception {
        BlockingQueue<String> pushes = new ArrayBlockingQueue<>(16);
        // The team's service: on 0.0.0.0, which a connection from the engine's network reaches.
        HttpServer service = HttpServer.create(new InetSocketAddress("0.0.0.0", 0), 0);
        service.createContext("/hooks/coupon-status", ex -> {
            pushes.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] ok = "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, ok.length);
            ex.getResponseBody().write(ok);
            ex.close();
        });
        service.start();
        try (RewardsimContainer container = RewardsimContainer.start()) {
            String want = container.engine().equals("podman") ? "http://host.containers.internal:" : "http://host.docker.internal:";
            check(container.hostUrl(8081).equals(want + "8081"), "hostUrl(8081) = " + container.hostUrl(8081));
            Channel ch = container.newChannel();
            ch.setWebhookUrl(container.hostUrl(service.getAddress().getPort()) + "/hooks/coupon-status");
            ch.webhook(Map.of("offerId", "OFFER-DEMO", "reason", "OUT_OF_STOCK"));
            String push = pushes.poll(20, TimeUnit.SECONDS);
            check(push != null, "no push arrived in 20 s");
            String body = push.substring(push.indexOf(' ') + 1);
            Map<String, Object> event = Json.parseObject(body);
            check(ch.name().equals(event.get("channelName")) && "COUPON_INVALIDATED".equals(event.get("eventType")), "the push: " + push);
            System.out.println("java container webhook: " + container.engine() + " " + container.id() + " pushed to "
                    + container.hostUrl(service.getAddress().getPort()) + push.substring(0, push.indexOf(' ')));
        } finally {
            service.stop(0);
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }
}
