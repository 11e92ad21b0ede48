package io.github.rewardsim;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Coupon-status pushes received for one channel, on a local HTTP endpoint. */
public final class WebhookInbox implements AutoCloseable {
    private final HttpServer server;
    private final String url;
    private final List<Map<String, Object>> pending = new ArrayList<>();
    private final List<Map<String, Object>> received = new ArrayList<>();

    private WebhookInbox(HttpServer server) {
        this.server = server;
        this.url = "http://127.0.0.1:" + server.getAddress().getPort() + "/coupon-status";
    }

    static WebhookInbox open() {
        HttpServer s;
        try {
            s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WebhookInbox in = new WebhookInbox(s);
        s.createContext("/", ex -> {
            byte[] reply;
            int status;
            try {
                Map<String, Object> push = Json.parseObject(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                in.add(push);
                status = 200;
                reply = "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                status = 400;
                reply = "{\"status\":\"BAD_JSON\"}".getBytes(StandardCharsets.UTF_8);
            }
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, reply.length);
            ex.getResponseBody().write(reply);
            ex.close();
        });
        s.start();
        return in;
    }

    private synchronized void add(Map<String, Object> push) {
        pending.add(push);
        received.add(push);
        notifyAll();
    }

    /**
     * The channel's webhookUrl.
     *
     * @return the channel's webhookUrl
     */
    public String url() { return url; }

    /**
     * Every push received so far, in order.
     *
     * @return every push received so far, in order
     */
    public synchronized List<Map<String, Object>> received() {
        return List.copyOf(received);
    }

    /**
     * The next push not yet taken whose eventType is eventType (null: any),
     * waiting up to timeout; AssertionError when none arrives.
     *
     * @param eventType the push's eventType, or null for any
     * @param timeout how long to wait
     * @return the push
     */
    public synchronized Map<String, Object> await(String eventType, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Iterator<Map<String, Object>> it = pending.iterator(); it.hasNext();) {
                Map<String, Object> p = it.next();
                if (eventType == null || eventType.equals(p.get("eventType"))) {
                    it.remove();
                    return p;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + (eventType == null ? "webhook" : eventType) + " push arrived at " + url
                        + " within " + timeout + " (received: " + Json.write(received) + ")");
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
