// make node: stages and packs the rewardsim package and one package per
// platform (@rewardsim/<platform>-<cpu>, with os and cpu fields), each with
// LICENSE. rewardsim carries binaries.json, the SHA-256 of every platform
// binary of this build, and refuses any other (binary.cjs). The platform
// packages are not dependencies of rewardsim: npm would look their names up
// in the public registry, where nobody publishes them and anyone could; a
// team installs its platform's tarball, or its own registry's copy, beside
// rewardsim (docs/node.md). Not part of the package.
//
//   node clients/node/pack.mjs --version 0.1.0 --bins bin/platforms --license LICENSE --stage bin/node-pack --out dist/node
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: o } = parseArgs({ options: {
  version: { type: "string" }, bins: { type: "string" }, license: { type: "string" }, stage: { type: "string" }, out: { type: "string" },
} });
for (const k of ["version", "bins", "license", "stage", "out"]) if (!o[k]) throw new Error(`pack.mjs: --${k} is required`);
const src = dirname(fileURLToPath(import.meta.url));
const out = resolve(o.out);
const goToNode = { os: { linux: "linux", darwin: "darwin", windows: "win32" }, arch: { amd64: "x64", arm64: "arm64" } };

// npm pack of dir into out, renamed to name.
function pack(dir, name) {
  const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop();
  renameSync(join(out, file), join(out, name));
}

// The SHA-256 of every platform binary packed, by Node's platform-cpu name.
const digests = {};

function platformPackage(goPlatform) {
  const [goos, goarch] = goPlatform.split("-");
  const os = goToNode.os[goos];
  const cpu = goToNode.arch[goarch];
  if (!os || !cpu) return null;
  const exe = goos === "windows" ? "rewardsim.exe" : "rewardsim";
  const binary = join(o.bins, goPlatform, exe);
  if (!existsSync(binary)) return null;
  const name = `@rewardsim/${os}-${cpu}`;
  const dir = join(o.stage, `${os}-${cpu}`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(binary, join(dir, "bin", exe));
  chmodSync(join(dir, "bin", exe), 0o755);
  digests[`${os}-${cpu}`] = createHash("sha256").update(readFileSync(join(dir, "bin", exe))).digest("hex");
  copyFileSync(o.license, join(dir, "LICENSE"));
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe rewardsim simulator binary for ${os} ${cpu}: the ` +
    "`rewardsim` package of the same build runs it (docs/node.md in the rewardsim repository) and refuses " +
    "the binary of any other build. Install it beside rewardsim from its tarball or your own registry.\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name, version: o.version, description: `The rewardsim binary for ${os} ${cpu} (used by the rewardsim package).`,
    license: "Apache-2.0", os: [os], cpu: [cpu], files: ["bin/", "LICENSE", "README.md"],
    preferUnplugged: true, repository: { type: "git", url: "https://github.com/rewardsim/rewardsim" },
  }, null, 2) + "\n");
  pack(dir, `rewardsim-${os}-${cpu}.tgz`);
  return name;
}

mkdirSync(out, { recursive: true });
const platforms = readdirSync(o.bins).sort().map(platformPackage).filter(Boolean);
if (platforms.length === 0) throw new Error(`pack.mjs: no binary under ${o.bins} (make bins builds them)`);

const main = join(o.stage, "rewardsim");
mkdirSync(main, { recursive: true });
const manifest = JSON.parse(readFileSync(join(src, "package.json"), "utf8"));
// index.d.cts: the same declarations, read as CommonJS by TypeScript for require("rewardsim").
for (const f of manifest.files) copyFileSync(join(src, f === "index.d.cts" ? "index.d.ts" : f), join(main, f));
copyFileSync(o.license, join(main, "LICENSE"));
manifest.version = o.version;
manifest.files.push("binaries.json");
writeFileSync(join(main, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
writeFileSync(join(main, "binaries.json"), JSON.stringify({ version: o.version, sha256: digests }, null, 2) + "\n");
pack(main, "rewardsim.tgz");
console.log(`dist/node: rewardsim.tgz (pinning their SHA-256) and ${platforms.length} platform package(s): ${platforms.join(", ")}`);
