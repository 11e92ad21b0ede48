"use strict";
// Which rewardsim binary startRewardsim runs, in this order: an explicit
// setting (the start option bin, else REWARDSIM_BIN), the platform package
// (@rewardsim/<platform>-<arch>, an optional dependency of rewardsim, the
// esbuild pattern), then rewardsim on PATH. A platform package's binary is
// copied once into a cache folder named by its SHA-256 and checked against
// that digest before every use, so a truncated or edited copy is replaced.
const { createHash } = require("node:crypto");
const { accessSync, constants, copyFileSync, chmodSync, mkdirSync, readFileSync, renameSync, existsSync } = require("node:fs");
const { homedir } = require("node:os");
const { delimiter, dirname, join } = require("node:path");

const exe = process.platform === "win32" ? "rewardsim.exe" : "rewardsim";

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
  return existsSync(bin) ? bin : null;
}

function sha256(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** The cache root: REWARDSIM_CACHE, else XDG_CACHE_HOME/rewardsim, else ~/.cache/rewardsim. */
function cacheRoot() {
  if (process.env.REWARDSIM_CACHE) return process.env.REWARDSIM_CACHE;
  const base = process.env.XDG_CACHE_HOME || (process.platform === "win32" && process.env.LOCALAPPDATA) || join(homedir(), ".cache");
  return join(base, "rewardsim");
}

// The packaged binary's copy in the cache (<root>/bin/<sha256>/rewardsim),
// made once: written beside, then renamed, so a parallel run never sees half.
function cached(src) {
  const digest = sha256(src);
  const dir = join(cacheRoot(), "bin", digest);
  const dst = join(dir, exe);
  if (existsSync(dst) && sha256(dst) === digest) return dst;
  mkdirSync(dir, { recursive: true });
  const tmp = `${dst}.${process.pid}.tmp`;
  copyFileSync(src, tmp);
  chmodSync(tmp, 0o755);
  renameSync(tmp, dst);
  if (sha256(dst) !== digest) throw new Error(`rewardsim: the cached copy ${dst} does not match ${src} (SHA-256 ${digest})`);
  return dst;
}

function onPath(name = exe) {
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch { /* not here */ }
  }
  return null;
}

/**
 * Resolves the binary: { path, from } where from is "option", "REWARDSIM_BIN",
 * the platform package's name, or "PATH". Throws naming the package to add.
 */
function resolveBinary(explicit) {
  if (explicit) return { path: explicit, from: "option" };
  if (process.env.REWARDSIM_BIN) return { path: process.env.REWARDSIM_BIN, from: "REWARDSIM_BIN" };
  const pkg = platformPackage();
  const packaged = packagedBinary(pkg);
  if (packaged) return { path: cached(packaged), from: pkg };
  const found = onPath();
  if (found) return { path: found, from: "PATH" };
  throw new Error(`rewardsim: no simulator binary for ${process.platform}-${process.arch}: add the platform package ${pkg} ` +
    `(npm install --save-dev ${pkg}; npm installs it with rewardsim unless optional dependencies are omitted), ` +
    "set REWARDSIM_BIN or the start option bin, or put rewardsim on PATH");
}

module.exports = { resolveBinary, platformPackage, packagedBinary, cacheRoot };
