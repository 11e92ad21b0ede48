package io.github.rewardsim;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One simulator: started here ({@link #start()}: {@code rewardsim serve} from
 * REWARDSIM_BIN or PATH on free loopback ports) or attached to
 * ({@link #attach(String, String)}). It makes channels and calls the control API.
 */
public final class RewardsimServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("^rewardsim: (\\S+) listening on (\\S+)$");
    private static final SecureRandom RANDOM = new SecureRandom();

    // HTTP/1.1: the JDK's default would add an h2c upgrade to every cleartext call.
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final String publicUrl;
    private final String controlUrl;
    private final String controlToken;
    private final Process process;
    private final Path dataDir;
    private final List<Channel> channels = new CopyOnWriteArrayList<>();
    private volatile PublicKey serviceKey;

    private RewardsimServer(String publicUrl, String controlUrl, Process process, Path dataDir) {
        this.publicUrl = trim(publicUrl);
        this.controlUrl = trim(controlUrl);
        this.controlToken = env("REWARDSIM_CONTROL_TOKEN", null);
        this.process = process;
        this.dataDir = dataDir;
    }

    /** Starts {@code rewardsim serve} (REWARDSIM_BIN, else rewardsim on PATH) on free loopback ports. */
    public static RewardsimServer start() {
        return start(env("REWARDSIM_BIN", "rewardsim"), List.of());
    }

    /** Starts bin's {@code serve} with more flags (such as {@code --scenario file.yaml}). */
    public static RewardsimServer start(String bin, List<String> extraArgs) {
        Path data;
        try {
            data = Files.createTempDirectory("rewardsim-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = new ArrayList<>(List.of(bin, "serve", "--data", data.toString(), "--listen", "127.0.0.1:0",
                "--control-listen", "127.0.0.1:0", "--log-level", "error"));
        cmd.addAll(extraArgs);
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectError(data.resolve("serve.log").toFile()).start();
        } catch (IOException e) {
            deleteTree(data);
            throw new UncheckedIOException("cannot start " + bin + " (set REWARDSIM_BIN or put rewardsim on PATH)", e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroy));
        // A serve that neither listens nor exits is stopped after 30 s, which ends the read below.
        AtomicBoolean ready = new AtomicBoolean();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                return;
            }
            if (!ready.get()) p.destroyForcibly();
        }, "rewardsim-start-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Map<String, String> urls = new LinkedHashMap<>();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((urls.get("all") == null || urls.get("control") == null) && (line = out.readLine()) != null) {
                Matcher m = LISTENING.matcher(line.trim());
                if (m.matches()) urls.put(m.group(1), m.group(2));
            }
        } catch (IOException e) {
            p.destroy();
            throw new UncheckedIOException(e);
        }
        ready.set(true);
        watchdog.interrupt();
        if (urls.get("all") == null || urls.get("control") == null) {
            p.destroy();
            String log = "";
            try {
                log = Files.readString(data.resolve("serve.log"));
            } catch (IOException ignored) {
                // the error is reported without the log
            }
            deleteTree(data);
            throw new IllegalStateException("rewardsim serve did not report its listeners: " + log);
        }
        Thread drain = new Thread(() -> drain(p.getInputStream()), "rewardsim-stdout");
        drain.setDaemon(true);
        drain.start();
        return new RewardsimServer(urls.get("all"), urls.get("control"), p, data);
    }

    /** Uses a running simulator: its public URL (all three hosts) and its control URL. */
    public static RewardsimServer attach(String publicUrl, String controlUrl) {
        RewardsimServer s = new RewardsimServer(publicUrl, controlUrl, null, null);
        s.control("GET", "/__sim/health", null);
        return s;
    }

    /** REWARDSIM_URL and REWARDSIM_CONTROL_URL when set (attach), else {@link #start()}. */
    public static RewardsimServer fromEnvironment() {
        String url = env("REWARDSIM_URL", null);
        if (url != null) return attach(url, env("REWARDSIM_CONTROL_URL", "http://127.0.0.1:8090"));
        return start();
    }

    public String publicUrl() { return publicUrl; }

    public String controlUrl() { return controlUrl; }

    /** A fresh channel like DEMOBANK with a generated name and a key pair of its own. */
    public Channel newChannel() {
        return newChannel(null, "DEMOBANK");
    }

    /**
     * A fresh run-time channel like {@code like} (its campaigns, offers with
     * their own stock, switches), with a key pair and app key of its own.
     * A null name is generated ("T-" and 12 hex digits).
     */
    public Channel newChannel(String name, String like) {
        byte[] id = new byte[6];
        RANDOM.nextBytes(id);
        String n = name != null ? name : "T-" + HexFormat.of().withUpperCase().formatHex(id);
        KeyPair keys;
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            keys = g.generateKeyPair();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        byte[] sec = new byte[12];
        RANDOM.nextBytes(sec);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("name", n);
        spec.put("like", like);
        spec.put("certificate", "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        spec.put("appKey", "APP" + HexFormat.of().withUpperCase().formatHex(id));
        spec.put("secKey", HexFormat.of().formatHex(sec));
        control("POST", "/__sim/channels", spec);
        Channel ch = new Channel(this, spec, keys.getPrivate(), serviceKey());
        channels.add(ch);
        return ch;
    }

    /** The service key (from /__sim/certs/service.pem) that verifies signed answers. */
    public PublicKey serviceKey() {
        if (serviceKey == null) {
            Answer a = send("GET /__sim/certs/service.pem", request(controlUrl + "/__sim/certs/service.pem").GET().build());
            if (a.status() != 200) throw a.failure(null);
            try {
                serviceKey = CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(a.text().getBytes(StandardCharsets.US_ASCII))).getPublicKey();
            } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException("service certificate: " + e.getMessage(), e);
            }
        }
        return serviceKey;
    }

    /** Calls the control API; body is JSON-encoded; a non-2xx answer throws RewardsimException. */
    public Object control(String method, String path, Object body) {
        HttpRequest.Builder b = request(controlUrl + path);
        if (controlToken != null) b.header("X-Rewardsim-Control-Token", controlToken);
        if (body != null) b.header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(Json.write(body)));
        Answer a = send(method + " " + path, b.build());
        if (a.status() / 100 != 2) throw a.failure(method + " " + path + ": HTTP " + a.status() + " " + Json.abbreviate(a.text()));
        return a.text().isEmpty() ? null : a.json();
    }

    static String query(String v) {
        return URLEncoder.encode(v, StandardCharsets.UTF_8);
    }

    HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(2));
    }

    Answer send(String endpoint, HttpRequest req) {
        try {
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            return new Answer(endpoint, r.statusCode(), r.body(), r.headers().firstValue("X-Rewardsim-Reason").orElse(null),
                    r.headers().firstValue("X-Rewardsim-Seq").map(Long::valueOf).orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(endpoint + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(endpoint + ": interrupted", e);
        }
    }

    /** One answer as received. */
    record Answer(String endpoint, int status, String text, String reason, Long seq) {
        Object json() {
            try {
                return Json.parse(text);
            } catch (IllegalArgumentException e) {
                return text;
            }
        }

        RewardsimException failure(String message) {
            return new RewardsimException(endpoint, status, json(), reason, seq, message);
        }
    }

    /** Closes the channels' webhook inboxes and stops the simulator if it was started here. */
    @Override
    public void close() {
        for (Channel ch : channels) ch.closeInbox();
        channels.clear();
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteTree(dataDir);
        }
    }

    private static void drain(InputStream in) {
        byte[] buf = new byte[4096];
        try {
            while (in.read(buf) >= 0) {
                // discard: the simulator logs to stderr
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind is harmless
        }
    }

    private static String trim(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? def : v;
    }
}
