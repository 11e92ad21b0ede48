package io.github.rewardsim;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The rewardsim command for a Java team: {@code java -jar rewardsim.jar <verb> [flags]} runs the
 * simulator binary the library would start (REWARDSIM_BIN, the pinned platform jar, PATH) with
 * the same arguments and this terminal's standard streams, and exits with its status. The
 * platform jar is found on the class path or beside rewardsim.jar (a file named
 * {@code rewardsim-*<platform>.jar}, as in dist/java or a Maven repository). When the JVM ends
 * (SIGTERM, SIGINT, SIGHUP) the simulator gets SIGTERM, then is killed after 10 s. Status 127:
 * no binary to run.
 */
public final class Main {
    private Main() {}

    /**
     * Runs the simulator binary with args.
     *
     * @param args the verb and its flags, as for {@code rewardsim}
     */
    public static void main(String[] args) {
        String exe;
        try {
            exe = Binary.resolve(null, withJarsBeside());
        } catch (RuntimeException e) {
            System.err.println("rewardsim: " + e.getMessage());
            System.exit(127);
            return;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(exe);
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).inheritIO().start();
        } catch (IOException e) {
            System.err.println("rewardsim: cannot run " + exe + ": " + e.getMessage());
            System.exit(127);
            return;
        }
        // The JVM ends on a signal: the simulator gets SIGTERM (its own clean
        // stop), and the JVM waits for it, up to 10 s.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!p.isAlive()) return;
            p.destroy();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly();
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "rewardsim-stop"));
        int status;
        try {
            status = p.waitFor();
        } catch (InterruptedException e) {
            status = 130;
        }
        System.exit(status);
    }

    // The class path, and the platform jars beside this jar when the class
    // path has none (java -jar puts only rewardsim.jar on it).
    private static ClassLoader withJarsBeside() {
        ClassLoader own = Main.class.getClassLoader();
        if (own.getResource(Binary.RESOURCE + Binary.platform() + "/" + Binary.exe()) != null) return own;
        Path dir;
        try {
            dir = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return own;
        }
        if (dir == null) return own;
        String suffix = "-" + Binary.platform() + ".jar";
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String n = f.getFileName().toString();
                if (n.startsWith("rewardsim-") && n.endsWith(suffix)) jars.add(f.toUri().toURL());
            }
        } catch (IOException e) {
            return own;
        }
        return jars.isEmpty() ? own : new URLClassLoader(jars.toArray(URL[]::new), own);
    }
}
