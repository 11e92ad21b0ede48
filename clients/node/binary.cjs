"use strict";
// Which rewardsim binary startRewardsim (and the rewardsim command, cli.cjs)
// runs, in this order: an explicit setting (the start option bin, else
// REWARDSIM_BIN), the platform package (@rewardsim/<platform>-<arch>,
// installed beside rewardsim from the tarball of the same build or from the
// team's own registry), then rewardsim on PATH.
//
// The platform package's binary is pinned: make node writes the SHA-256 of
// every platform binary of the build into this package (binaries.json), and
// a binary that differs is refused before it ever runs, so a package of that
// name from anywhere else (a public registry, another build) cannot run. It is
// copied once into a cache folder named by that digest and checked against
// it before every use; folders of other builds unused for a day are removed.
const { createHash } = require("node:crypto");
const fs = require("node:fs");
const { homedir } = require("node:os");
const { delimiter, dirname, join } = require("node:path");

const exe = process.platform === "win32" ? "rewardsim.exe" : "rewardsim";
const DAY_MS = 24 * 60 * 60 * 1000;
const DIGEST = /^[0-9a-f]{64}$/;

/** The platform package for this machine, e.g. @rewardsim/linux-x64. */
function platformPackage(platform = process.platform, arch = process.arch) {
  return `@rewardsim/${platform}-${arch}`;
}

/** The binary a platform package holds, or null when it is not installed. */
function packagedBinary(pkg = platformPackage()) {
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    return null;
  }
  const bin = join(dirname(manifest), "bin", exe);
  return fs.existsSync(bin) ? bin : null;
}

function sha256(file) {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

// binaries.json, written by make node: this build's version and the
// SHA-256 of each platform's binary ("linux-x64": "..."); null in a source
// checkout (not packed).
function pins() {
  try {
    return JSON.parse(fs.readFileSync(join(__dirname, "binaries.json"), "utf8"));
  } catch {
    return null;
  }
}

/** The SHA-256 this package was built with for platform-arch, or null. */
function pinnedDigest(platform = `${process.platform}-${process.arch}`) {
  const digest = pins()?.sha256?.[platform];
  return typeof digest === "string" && DIGEST.test(digest) ? digest : null;
}

// The refusal of a platform binary that is not the one of this build:
// what was expected, what was found, and where.
function refused(pkg, file, want, got) {
  const built = pins()?.version ?? "unknown";
  return new Error(`rewardsim: refusing the simulator binary of ${pkg} at ${file}: its SHA-256 is ${got}, ` +
    `but this rewardsim package (${built}) was built with ${want ?? "no binary"} for ${process.platform}-${process.arch}. ` +
    "Install the platform tarball of the same build as rewardsim.tgz (make node packs both), " +
    "or set REWARDSIM_BIN to a rewardsim you trust");
}

/** The cache root: REWARDSIM_CACHE, else XDG_CACHE_HOME/rewardsim, else ~/.cache/rewardsim. */
function cacheRoot() {
  if (process.env.REWARDSIM_CACHE) return process.env.REWARDSIM_CACHE;
  const base = process.env.XDG_CACHE_HOME || (process.platform === "win32" && process.env.LOCALAPPDATA) || join(homedir(), ".cache");
  return join(base, "rewardsim");
}

// Removes the cache folders of other builds whose binary nobody started
// for a day (each start touches its own): a process that resolved one a
// moment ago has touched it, and a running binary's file may go (POSIX
// keeps it open; Windows refuses, which is ignored). Folders not named
// by a digest are never touched.
function sweepCache(bins, keep) {
  let names;
  try {
    names = fs.readdirSync(bins);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (name === keep || !DIGEST.test(name)) continue;
    const dir = join(bins, name);
    try {
      const used = fs.existsSync(join(dir, exe)) ? fs.statSync(join(dir, exe)).mtimeMs : fs.statSync(dir).mtimeMs;
      if (now - used > DAY_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch { /* in use or gone: left */ }
  }
}

// The packaged binary's copy in the cache (<root>/bin/<sha256>/rewardsim),
// after checking the package's binary against this build's pin; made once:
// written beside, then renamed, so a parallel run never sees half.
function cached(pkg, src) {
  const want = pinnedDigest();
  const got = sha256(src);
  if (want !== got) throw refused(pkg, src, want, got);
  const bins = join(cacheRoot(), "bin");
  const dir = join(bins, want);
  const dst = join(dir, exe);
  if (!(fs.existsSync(dst) && sha256(dst) === want)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${dst}.${process.pid}.tmp`;
    fs.copyFileSync(src, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, dst);
    if (sha256(dst) !== want) throw new Error(`rewardsim: the cached copy ${dst} does not match ${src} (SHA-256 ${want})`);
  }
  try {
    const now = new Date();
    fs.utimesSync(dst, now, now); // in use: kept by every other build's sweep
  } catch { /* a read-only cache */ }
  sweepCache(bins, want);
  return dst;
}

// The command cli.cjs installs as node_modules/.bin/rewardsim: never
// taken for the simulator when it is found on PATH.
const launcher = join(__dirname, "cli.cjs");

function isLauncher(p) {
  try {
    return fs.realpathSync(p) === fs.realpathSync(launcher);
  } catch {
    return false;
  }
}

function onPath(name = exe) {
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (!isLauncher(p)) return p;
    } catch { /* not here */ }
  }
  return null;
}

/**
 * Resolves the binary: { path, from } where from is "option", "REWARDSIM_BIN",
 * the platform package's name, or "PATH". Throws saying how to get one, and
 * refuses a platform binary that is not the one of this build.
 */
function resolveBinary(explicit) {
  if (explicit) return { path: explicit, from: "option" };
  if (process.env.REWARDSIM_BIN) return { path: process.env.REWARDSIM_BIN, from: "REWARDSIM_BIN" };
  const pkg = platformPackage();
  const packaged = packagedBinary(pkg);
  if (packaged) return { path: cached(pkg, packaged), from: pkg };
  const found = onPath();
  if (found) return { path: found, from: "PATH" };
  const platform = `${process.platform}-${process.arch}`;
  throw new Error(`rewardsim: no simulator binary for ${platform}: install the platform tarball rewardsim-${platform}.tgz ` +
    "of the same build as rewardsim.tgz (make node packs both; or your own registry's copy of it), " +
    "set REWARDSIM_BIN or the start option bin, or put rewardsim on PATH");
}

module.exports = { resolveBinary, platformPackage, packagedBinary, pinnedDigest, cacheRoot };
