package io.github.rewardsim;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the rewardsim binary to start, in a documented order: an explicit
 * setting (the builder's, {@code -Drewardsim.bin}, REWARDSIM_BIN), then the
 * platform artefact on the class path (the jar of classifier {@link #platform()}),
 * then {@code rewardsim} on PATH.
 *
 * <p>The artefact's binary is pinned: make java writes the SHA-256 of every
 * platform binary of the build into this library's jar ({@link #PINS}), and a
 * platform jar whose binary differs is refused before it ever runs. The binary
 * is extracted once to a cache folder named by that digest and checked against
 * it before each use; folders of other builds unused for a day are removed.
 */
final class Binary {
    /** Where a platform jar keeps its binary: this folder, then the platform, then the file. */
    static final String RESOURCE = "io/github/rewardsim/bin/";
    /** The library jar's pins, in sha256sum's format: {@code <sha256>  <platform>/rewardsim[.exe]}. */
    static final String PINS = "io/github/rewardsim/binaries.sha256";
    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");
    private static final Duration UNUSED = Duration.ofDays(1);

    private Binary() {}

    /** The platform as the artefacts name it: linux, darwin or windows, a dash, amd64 or arm64. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.contains("win") ? "windows" : os.contains("mac") || os.contains("darwin") ? "darwin" : os.contains("linux") ? "linux" : os;
        String a = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> arch;
        };
        return o + "-" + a;
    }

    static String exe() {
        return platform().startsWith("windows") ? "rewardsim.exe" : "rewardsim";
    }

    /**
     * The binary to start.
     *
     * @param explicit the builder's setting, or null
     */
    static String resolve(String explicit) {
        return resolve(explicit, Binary.class.getClassLoader());
    }

    /**
     * The binary to start, the platform artefact looked up with loader.
     *
     * @param explicit the builder's setting, or null
     * @param loader where the platform artefact may be
     */
    static String resolve(String explicit, ClassLoader loader) {
        String set = explicit != null ? explicit : setting("rewardsim.bin", "REWARDSIM_BIN");
        if (set != null) return set;
        Path extracted = fromClasspath(loader);
        if (extracted != null) return extracted.toString();
        Path onPath = onPath();
        if (onPath != null) return onPath.toString();
        throw new IllegalStateException("no rewardsim binary for " + platform() + ": add this build's platform jar rewardsim-"
                + platform() + ".jar (make java builds it beside rewardsim.jar; in your own Maven repository,"
                + " io.github.rewardsim:rewardsim:" + RewardsimServer.VERSION + ":" + platform()
                + ") to the test class path, or set REWARDSIM_BIN (-Drewardsim.bin), or put rewardsim on PATH");
    }

    /** A system property, else an environment variable; blank counts as unset. */
    static String setting(String property, String env) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(env);
        return v == null || v.isBlank() ? null : v;
    }

    private static Path onPath() {
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, exe());
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    /**
     * The SHA-256 this library was built with for platform, or null (a library not built by
     * make java, or not for that platform).
     */
    static String pinned(String platform) {
        try (InputStream in = Binary.class.getClassLoader().getResourceAsStream(PINS)) {
            if (in == null) return null;
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 2 && DIGEST.matcher(f[0]).matches() && f[1].startsWith(platform + "/")) return f[0];
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the library's checksums " + PINS + ": " + e.getMessage(), e);
        }
    }

    // The platform artefact's binary, checked against this build's pin and
    // extracted to <cache>/<sha256>/ when not there yet or not matching it;
    // null without the artefact.
    private static Path fromClasspath(ClassLoader cl) {
        String resource = RESOURCE + platform() + "/" + exe();
        URL where = cl.getResource(resource);
        if (where == null) return null;
        String want = pinned(platform());
        Path target = cache().resolve(want == null ? "unpinned" : want).resolve(exe());
        try {
            if (want != null && Files.isRegularFile(target) && want.equals(sha256(target))) return inUse(target, want);
            Files.createDirectories(cache());
            Path tmp = Files.createTempFile(cache(), "rewardsim-", ".part");
            try {
                try (InputStream in = cl.getResourceAsStream(resource)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                String got = sha256(tmp);
                if (!got.equals(want)) {
                    throw new IllegalStateException("refusing the rewardsim binary for " + platform() + " at " + where + ": its SHA-256 is "
                            + got + ", but this library (rewardsim.jar " + RewardsimServer.VERSION + ") was built with "
                            + (want == null ? "no binary for " + platform() : want) + ". Put the platform jar of the same build as"
                            + " rewardsim.jar on the class path, or set REWARDSIM_BIN (-Drewardsim.bin) to a rewardsim you trust");
                }
                tmp.toFile().setExecutable(true);
                Files.createDirectories(target.getParent());
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
            return inUse(target, want);
        } catch (IOException e) {
            throw new UncheckedIOException("extracting rewardsim to " + target + ": " + e.getMessage(), e);
        }
    }

    // Marks target as in use (its time) and removes the cache folders of
    // other builds whose binary nobody started for a day: a process that
    // resolved one a moment ago has touched it, and a running binary's file
    // may go (POSIX keeps it open; Windows refuses, which is ignored).
    // Folders not named by a digest are never touched; an extraction's
    // .part file a killed JVM left goes after a day too.
    private static Path inUse(Path target, String keep) {
        try {
            Files.setLastModifiedTime(target, FileTime.from(Instant.now()));
        } catch (IOException ignored) {
            // a read-only cache
        }
        Instant before = Instant.now().minus(UNUSED);
        try (Stream<Path> dirs = Files.list(cache())) {
            dirs.filter(d -> {
                String n = d.getFileName().toString();
                return DIGEST.matcher(n).matches() && !n.equals(keep) || n.startsWith("rewardsim-") && n.endsWith(".part");
            }).forEach(d -> {
                try {
                    Path bin = d.resolve(exe());
                    FileTime used = Files.getLastModifiedTime(Files.isDirectory(d) && Files.exists(bin) ? bin : d);
                    if (used.toInstant().isBefore(before)) deleteTree(d);
                } catch (IOException ignored) {
                    // gone meanwhile
                }
            });
        } catch (IOException ignored) {
            // nothing to sweep
        }
        return target;
    }
    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** REWARDSIM_CACHE (-Drewardsim.cache), else the user's cache folder's rewardsim/. */
    static Path cache() {
        String set = setting("rewardsim.cache", "REWARDSIM_CACHE");
        if (set != null) return Path.of(set);
        String xdg = System.getenv("XDG_CACHE_HOME");
        String local = System.getenv("LOCALAPPDATA");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "rewardsim");
        if (local != null && !local.isBlank()) return Path.of(local, "rewardsim");
        String home = System.getProperty("user.home");
        if (platform().startsWith("darwin")) return Path.of(home, "Library", "Caches", "rewardsim");
        return Path.of(home, ".cache", "rewardsim");
    }

    static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0;) md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
