package io.github.rewardsim;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Finds the rewardsim binary to start, in a documented order: an explicit
 * setting (the builder's, {@code -Drewardsim.bin}, REWARDSIM_BIN), then the
 * platform artefact on the class path (the jar of classifier {@link #platform()}),
 * then {@code rewardsim} on PATH. The artefact's binary is extracted once to
 * a cache folder named by its SHA-256 and checked against it before each use.
 */
final class Binary {
    /** Where a platform jar keeps its binary: this folder, then the platform, then the file. */
    static final String RESOURCE = "io/github/rewardsim/bin/";

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

    private static String exe() {
        return platform().startsWith("windows") ? "rewardsim.exe" : "rewardsim";
    }

    /**
     * The binary to start.
     *
     * @param explicit the builder's setting, or null
     */
    static String resolve(String explicit) {
        String set = explicit != null ? explicit : setting("rewardsim.bin", "REWARDSIM_BIN");
        if (set != null) return set;
        Path extracted = fromClasspath();
        if (extracted != null) return extracted.toString();
        Path onPath = onPath();
        if (onPath != null) return onPath.toString();
        throw new IllegalStateException("no rewardsim binary for " + platform() + ": add the platform artefact"
                + " io.github.rewardsim:rewardsim:" + RewardsimServer.VERSION + ":" + platform()
                + " (dist/java/rewardsim-" + platform() + ".jar) to the test class path, or set REWARDSIM_BIN"
                + " (-Drewardsim.bin), or put rewardsim on PATH");
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

    // The platform artefact's binary, extracted to <cache>/<sha256>/ when
    // not there yet or not matching its digest; null without the artefact.
    private static Path fromClasspath() {
        String dir = RESOURCE + platform() + "/";
        ClassLoader cl = Binary.class.getClassLoader();
        String want;
        try (InputStream sum = cl.getResourceAsStream(dir + "rewardsim.sha256")) {
            if (sum == null) return null;
            want = new String(sum.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0];
        } catch (IOException e) {
            throw new UncheckedIOException("reading the platform artefact's checksum: " + e.getMessage(), e);
        }
        Path target = cache().resolve(want).resolve(exe());
        try {
            if (Files.isRegularFile(target) && want.equals(sha256(target))) return target;
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), "rewardsim-", ".part");
            try (InputStream in = cl.getResourceAsStream(dir + exe())) {
                if (in == null) throw new IllegalStateException("the platform artefact for " + platform() + " has a checksum but no " + exe());
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            String got = sha256(tmp);
            if (!want.equals(got)) {
                Files.deleteIfExists(tmp);
                throw new IllegalStateException("the platform artefact's " + exe() + " has SHA-256 " + got + ", its checksum says " + want);
            }
            tmp.toFile().setExecutable(true);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("extracting rewardsim to " + target + ": " + e.getMessage(), e);
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
