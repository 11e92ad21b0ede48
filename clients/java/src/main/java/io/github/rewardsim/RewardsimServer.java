package io.github.rewardsim;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One simulator: started here ({@link #start()}: {@code rewardsim serve} on free loopback ports,
 * the binary found as {@link #start(String, List)} says) or attached to
 * ({@link #attach(String, String)}). It makes channels and calls the control API.
 */
public final class RewardsimServer implements AutoCloseable {
    /** The library's version (the jar's Implementation-Version), "dev" out of a jar. */
    public static final String VERSION = version();

    private static final Pattern LISTENING = Pattern.compile("^rewardsim: (\\S+) listening on (\\S+)$");
    private static final SecureRandom RANDOM = new SecureRandom();
    // The stdin pipes of the simulators started here, never written nor
    // closed: the OS closes them when the JVM ends, however it ends, and
    // serve --exit-on-stdin-eof then stops.
    private static final List<OutputStream> LIFELINES = new CopyOnWriteArrayList<>();

    // HTTP/1.1: the JDK's default would add an h2c upgrade to every cleartext call.
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final String publicUrl;
    private final String controlUrl;
    private final String controlToken;
    private final Process process;
    private final Path dataDir;
    private final List<Channel> channels = new CopyOnWriteArrayList<>();
    private volatile PublicKey serviceKey;
    private volatile String serviceCertificatePem;

    private RewardsimServer(String publicUrl, String controlUrl, Process process, Path dataDir) {
        this.publicUrl = trim(publicUrl);
        this.controlUrl = trim(controlUrl);
        this.controlToken = Binary.setting("rewardsim.controlToken", "REWARDSIM_CONTROL_TOKEN");
        this.process = process;
        this.dataDir = dataDir;
    }

    private static String version() {
        String v = RewardsimServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /**
     * Starts {@code rewardsim serve} on free loopback ports with a temporary data folder.
     *
     * @return the running simulator
     */
    public static RewardsimServer start() {
        return start(null, List.of());
    }

    /**
     * Starts {@code serve} with more flags (such as {@code --scenario file.yaml}). The binary is
     * bin when not null; else {@code -Drewardsim.bin}, else REWARDSIM_BIN; else the platform
     * artefact on the class path (extracted once to a cache folder named by its SHA-256); else
     * {@code rewardsim} on PATH. The simulator stops with this JVM however it ends (it watches a
     * pipe on its standard input) and removes its data folder. Under {@code rewardsim sweep}
     * (REWARDSIM_SWEEP_ROW, REWARDSIM_URL and REWARDSIM_CONTROL_URL set) it starts nothing and
     * attaches to the sweep's simulator instead, whose run's channel new channels copy: a suite
     * runs under the sweep unchanged (bin and extraArgs are then not used).
     *
     * @param bin the binary, or null to find one
     * @param extraArgs more flags of serve
     * @return the running simulator
     */
    public static RewardsimServer start(String bin, List<String> extraArgs) {
        if (underSweep()) return attach(System.getenv("REWARDSIM_URL"), System.getenv("REWARDSIM_CONTROL_URL"));
        String exe = Binary.resolve(bin);
        // A path that does not exist yet: serve --remove-data-on-exit creates
        // the folder and removes only a folder it created.
        byte[] id = new byte[12];
        RANDOM.nextBytes(id);
        Path data = Path.of(System.getProperty("java.io.tmpdir"), "rewardsim-" + HexFormat.of().formatHex(id));
        List<String> cmd = new ArrayList<>(List.of(exe, "serve", "--data", data.toString(), "--listen", "127.0.0.1:0",
                "--control-listen", "127.0.0.1:0", "--log-level", "error", "--exit-on-stdin-eof", "--remove-data-on-exit"));
        cmd.addAll(extraArgs);
        Process p;
        try {
            p = new ProcessBuilder(cmd).start();
        } catch (IOException e) {
            deleteTree(data);
            throw new UncheckedIOException("cannot start " + exe + " (set REWARDSIM_BIN or -Drewardsim.bin, add the platform artefact "
                    + "io.github.rewardsim:rewardsim:" + VERSION + ":" + Binary.platform() + ", or put rewardsim on PATH)", e);
        }
        LIFELINES.add(p.getOutputStream());
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroy));
        StringBuffer log = new StringBuffer();
        Thread err = new Thread(() -> keepTail(p.getErrorStream(), log), "rewardsim-stderr");
        err.setDaemon(true);
        err.start();
        Map<String, String> urls = listeners(p);
        if (urls.get("all") == null || urls.get("control") == null) {
            LIFELINES.remove(p.getOutputStream());
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
                err.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteTree(data);
            throw new IllegalStateException("rewardsim serve (" + exe + ") did not report its listeners: " + log);
        }
        Thread drain = new Thread(() -> drain(p.getInputStream()), "rewardsim-stdout");
        drain.setDaemon(true);
        drain.start();
        return new RewardsimServer(urls.get("all"), urls.get("control"), p, data);
    }

    // The listeners serve prints on its standard output; a serve that
    // neither listens nor exits is stopped after 30 s, which ends the read.
    private static Map<String, String> listeners(Process p) {
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
            // reported as a start that did not listen
        }
        ready.set(true);
        watchdog.interrupt();
        return urls;
    }

    private static final ThreadLocal<String> RUNNING_TEST = new ThreadLocal<>();

    /**
     * Names the test running on this thread (null: none), for {@code rewardsim sweep}: a channel
     * made on this thread is named after it in REWARDSIM_SWEEP_CHANNELS, so a sweep row runs only
     * the tests that called its endpoint. The JUnit extension calls it around each test.
     *
     * @param test such as {@code com.example.ClaimTest#retries}, or null
     */
    public static void runningTest(String test) {
        if (test == null) RUNNING_TEST.remove();
        else RUNNING_TEST.set(test);
    }

    // Tells rewardsim sweep which test a channel is for: a line
    // "CHANNEL<TAB>TEST" appended to REWARDSIM_SWEEP_CHANNELS.
    private static void noteSweepChannel(String channel, String test) {
        String file = env("REWARDSIM_SWEEP_CHANNELS", null);
        if (file == null || test == null) return;
        try {
            Files.writeString(Path.of(file), channel + "\t" + test + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write REWARDSIM_SWEEP_CHANNELS " + file, e);
        }
    }

    /**
     * Whether this JVM runs under {@code rewardsim sweep}: its variables name the sweep's
     * simulator (docs/sweep.md).
     *
     * @return true when REWARDSIM_SWEEP_ROW, REWARDSIM_URL and REWARDSIM_CONTROL_URL are set
     */
    public static boolean underSweep() {
        return System.getenv("REWARDSIM_SWEEP_ROW") != null && env("REWARDSIM_URL", null) != null && env("REWARDSIM_CONTROL_URL", null) != null;
    }

    /**
     * Uses a running simulator.
     *
     * @param publicUrl its public URL (all three hosts)
     * @param controlUrl its control URL
     * @return the simulator
     */
    public static RewardsimServer attach(String publicUrl, String controlUrl) {
        if (publicUrl == null || controlUrl == null) {
            throw new IllegalArgumentException("attach needs both the public URL and the control URL (the control URL is never guessed)");
        }
        RewardsimServer s = new RewardsimServer(publicUrl, controlUrl, null, null);
        s.control("GET", "/__sim/health", null);
        return s;
    }

    /**
     * The simulator at {@code -Drewardsim.url} (REWARDSIM_URL) and {@code -Drewardsim.controlUrl}
     * (REWARDSIM_CONTROL_URL) when the public URL is set, else {@link #start()}. The control URL
     * is never guessed from the public one: setting one without the other fails.
     *
     * @return the simulator
     */
    public static RewardsimServer fromEnvironment() {
        String url = Binary.setting("rewardsim.url", "REWARDSIM_URL");
        String control = Binary.setting("rewardsim.controlUrl", "REWARDSIM_CONTROL_URL");
        if (url != null && control == null) {
            throw new IllegalStateException("REWARDSIM_URL (rewardsim.url) is set to " + url + " but REWARDSIM_CONTROL_URL"
                    + " (rewardsim.controlUrl) is not: set both; the control URL is never guessed from the public one");
        }
        if (url == null && control != null) {
            throw new IllegalStateException("REWARDSIM_CONTROL_URL (rewardsim.controlUrl) is set but REWARDSIM_URL (rewardsim.url) is not: set both");
        }
        if (url != null) return attach(url, control);
        return start();
    }

    /** @return the public URL: the rewards, bank and coupon hosts */
    public String publicUrl() { return publicUrl; }

    /** @return the control API's URL */
    public String controlUrl() { return controlUrl; }

    /** @return the process id of the simulator started here; empty when attached */
    public OptionalLong pid() {
        return process == null ? OptionalLong.empty() : OptionalLong.of(process.pid());
    }

    /** @return the temporary data folder of the simulator started here (removed when it stops); empty when attached */
    public Optional<Path> dataDir() {
        return Optional.ofNullable(dataDir);
    }

    /**
     * A fresh channel like REWARDSIM_LIKE when set, else DEMOBANK, with a generated name and a key of its own.
     *
     * @return the channel
     */
    public Channel newChannel() {
        return newChannel(ChannelSpec.defaults());
    }

    /**
     * A fresh run-time channel like {@code like} (its campaigns, offers with their own stock,
     * switches), with a key pair and app key of its own.
     *
     * @param name the channel's name; null: "T-" and 12 hex digits
     * @param like the channel to copy; null: REWARDSIM_LIKE when set, else DEMOBANK
     * @return the channel
     */
    public Channel newChannel(String name, String like) {
        return newChannel(ChannelSpec.like(like).name(name));
    }

    /**
     * A fresh run-time channel as spec says. The app key, secret key and channel id are the ones
     * the simulator answers with (a shared simulator may assign its own). The simulator copies the
     * like channel's control-API fault rules too (a sweep's REWARDSIM_LIKE channel and its fault).
     *
     * @param spec what the channel is made of
     * @return the channel
     */
    public Channel newChannel(ChannelSpec spec) {
        byte[] id = new byte[6];
        RANDOM.nextBytes(id);
        String n = spec.nameOrNull() != null ? spec.nameOrNull() : "T-" + HexFormat.of().withUpperCase().formatHex(id);
        String like = spec.likeName();
        if (like == null) like = Objects.requireNonNullElse(Binary.setting("rewardsim.like", "REWARDSIM_LIKE"), "DEMOBANK");
        // Under a sweep, a channel like the sweep's --like is made like the run's channel instead,
        // which is like it too and carries the run's fault.
        if (underSweep() && like.equals(env("REWARDSIM_SWEEP_LIKE", null)) && env("REWARDSIM_LIKE", null) != null) like = env("REWARDSIM_LIKE", null);
        PrivateKey key = null;
        String cert = spec.certificate();
        boolean libraryKey = false;
        if (spec.privateKey() != null) {
            key = Keys.privateKey(spec.privateKey());
            PublicKey pub = Keys.publicOf(key);
            if (cert == null) cert = Keys.selfSigned(new KeyPair(pub, key), n);
            else if (!pub.equals(Keys.publicKey(cert))) throw new IllegalArgumentException("certificatePem does not hold privateKeyPem's public key");
        } else if (cert == null) {
            KeyPair kp = Keys.generate();
            key = kp.getPrivate();
            cert = Keys.selfSigned(kp, n);
            libraryKey = true;
        } else {
            Keys.publicKey(cert); // a bad PEM fails here, with the reason
        }
        byte[] sec = new byte[12];
        RANDOM.nextBytes(sec);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", n);
        body.put("like", like);
        body.put("certificate", cert);
        body.put("appKey", spec.app() != null ? spec.app() : "APP" + HexFormat.of().withUpperCase().formatHex(id));
        body.put("secKey", spec.sec() != null ? spec.sec() : HexFormat.of().formatHex(sec));
        if (spec.webhook() != null) body.put("webhookUrl", spec.webhook());
        if (libraryKey) body.put("keyOrigin", "library");
        Object answer = control("POST", "/__sim/channels", body);
        if (answer instanceof Map<?, ?> a) {
            for (String k : new String[] {"channelId", "appKey", "secKey", "webhookUrl"}) {
                if (a.get(k) instanceof String v && !v.isEmpty()) body.put(k, v);
            }
        }
        Channel ch = new Channel(this, body, key, serviceKey());
        noteSweepChannel(n, spec.testOrNull() != null ? spec.testOrNull() : RUNNING_TEST.get());
        channels.add(ch);
        return ch;
    }

    /**
     * The conformance report ({@code GET /__sim/report}) of a channel, as {@code rewardsim report}
     * gives it; {@link Report#failOn(Report.Severity)} fails a test on its findings.
     *
     * @param channel a channel's name or CHANNELID; null: every channel
     * @return the report
     */
    public Report report(String channel) {
        return report(channel, 0);
    }

    /**
     * The conformance report with another TOK-5 threshold.
     *
     * @param channel a channel's name or CHANNELID; null: every channel
     * @param refTokenPerHour reference tokens a channel may fetch in 60 minutes before TOK-5 fires (0: the default, 4)
     * @return the report
     */
    public Report report(String channel, int refTokenPerHour) {
        StringBuilder q = new StringBuilder();
        if (channel != null) q.append("&channel=").append(query(channel));
        if (refTokenPerHour != 0) q.append("&refTokenPerHour=").append(refTokenPerHour);
        Object r = control("GET", "/__sim/report" + (q.length() > 0 ? "?" + q.substring(1) : ""), null);
        if (!(r instanceof Map<?, ?> m)) throw new IllegalStateException("GET /__sim/report: not a JSON object: " + Json.abbreviate(String.valueOf(r)));
        return Report.of(m);
    }

    /**
     * The simulator's service certificate, which verifies its signed answers.
     *
     * @return its PEM ({@code GET /__sim/certs/service.pem})
     */
    public String serviceCertificatePem() {
        if (serviceCertificatePem == null) {
            Answer a = send("GET /__sim/certs/service.pem", request(controlUrl + "/__sim/certs/service.pem").GET().build());
            if (a.status() != 200) throw a.failure(null);
            serviceCertificatePem = a.text();
        }
        return serviceCertificatePem;
    }

    /**
     * The service key that verifies signed answers.
     *
     * @return the public key of {@link #serviceCertificatePem()}
     */
    public PublicKey serviceKey() {
        if (serviceKey == null) serviceKey = Keys.publicKey(serviceCertificatePem());
        return serviceKey;
    }

    /**
     * Overrides a behaviour switch for a channel, or every channel, over what the scenario says
     * ({@code POST /__sim/switches}); kept across a restart.
     *
     * @param sw the switch
     * @param value one of {@link Switch#allowedValues()} (or, for a free one, what {@link Switch#allowed()} says)
     * @param channel the channel; null: every channel
     * @return the switch as it now is: value, default, scenario, override
     * @throws IllegalArgumentException for a value the switch does not list, naming those it takes
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> setSwitch(Switch sw, String value, String channel) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", sw.switchName());
        body.put("value", sw.check(value));
        if (channel != null) body.put("channel", channel);
        return (Map<String, Object>) control("POST", "/__sim/switches", body);
    }

    /**
     * Puts the scenario's value back ({@code DELETE /__sim/switches[/{name}]}).
     *
     * @param sw the switch; null: every switch overridden
     * @param channel the channel; null: the overrides of every channel
     * @return the channel's switches, with {@code reset} naming those put back
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> resetSwitch(Switch sw, String channel) {
        String path = "/__sim/switches" + (sw == null ? "" : "/" + query(sw.switchName()));
        return (Map<String, Object>) control("DELETE", path + (channel == null ? "" : "?channel=" + query(channel)), null);
    }

    /**
     * Sets a latency profile for a channel, or every channel ({@code POST /__sim/latency}); kept across a restart.
     *
     * @param profile such as {@code Latency.fixed(Duration.ofMillis(250)).on("getCatalogue")}
     * @param channel the channel; null: every channel
     * @return the profile as the simulator keeps it
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> latency(Latency profile, String channel) {
        return (Map<String, Object>) control("POST", "/__sim/latency", profile.toProfile(channel));
    }

    /**
     * Removes run-time latency profiles ({@code DELETE /__sim/latency}).
     *
     * @param endpoint the operation; null: every one
     * @param channel the channel; null: every channel's
     * @return {@code removed}: the profiles removed
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> removeLatency(String endpoint, String channel) {
        StringBuilder q = new StringBuilder();
        if (endpoint != null) q.append("&endpoint=").append(query(endpoint));
        if (channel != null) q.append("&channel=").append(query(channel));
        return (Map<String, Object>) control("DELETE", "/__sim/latency" + (q.length() > 0 ? "?" + q.substring(1) : ""), null);
    }

    /**
     * Every behaviour switch of a channel ({@code GET /__sim/switches}).
     *
     * @param channel the channel; null: every channel's
     * @return the scenario and each switch's value in force, default, scenario value and overrides
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> switches(String channel) {
        return (Map<String, Object>) control("GET", "/__sim/switches" + (channel == null ? "" : "?channel=" + query(channel)), null);
    }

    /**
     * Calls the control API; body is JSON-encoded; a non-2xx answer throws RewardsimException.
     *
     * @param method the HTTP method
     * @param path the path and query
     * @param body the request body (null: none)
     * @return the decoded answer, or null when empty
     */
    public Object control(String method, String path, Object body) {
        HttpRequest.Builder b = request(controlUrl + path);
        if (controlToken != null) b.header("X-Rewardsim-Control-Token", controlToken);
        if (body != null) b.header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(Json.write(body)));
        Answer a = send(method + " " + path, b.build());
        // The simulator's reason whole (a list of names is not cut mid-name), else the body abbreviated.
        if (a.status() / 100 != 2) {
            throw a.failure(method + " " + path + ": HTTP " + a.status() + " " + (a.reason() != null ? a.reason() : Json.abbreviate(a.text())));
        }
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
            throw new UncheckedIOException(endpoint + " at " + req.uri() + ": " + cause(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(endpoint + ": interrupted", e);
        }
    }

    // What went wrong with a call that got no answer: the JDK's client says
    // null for a refused connection.
    private static String cause(IOException e) {
        if (e instanceof ConnectException) {
            return "connection refused (nothing listens there: is the simulator running, and is the URL right?)";
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
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
            LIFELINES.remove(process.getOutputStream());
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteTree(dataDir);
        }
    }

    // The last 8 KiB of the simulator's standard error, for a failed start's message.
    private static void keepTail(InputStream in, StringBuffer tail) {
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) >= 0;) {
                tail.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                if (tail.length() > 8192) tail.delete(0, tail.length() - 8192);
            }
        } catch (IOException ignored) {
            // the process ended
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
