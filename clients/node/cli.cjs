#!/usr/bin/env node
"use strict";
// The rewardsim command of the npm package (npx rewardsim <verb>): runs the
// simulator binary startRewardsim would (REWARDSIM_BIN, the pinned platform
// package, PATH) with the same arguments and this terminal's stdio; its exit
// status is this command's, a signal that ends it ends this process too, and
// a signal this process receives is passed on to it. 127: no binary to run.
const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const { resolveBinary } = require("./binary.cjs");

let bin;
try {
  bin = resolveBinary().path;
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(127);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR2"].filter((s) => process.platform !== "win32" || s === "SIGINT");
const forward = (signal) => { try { child.kill(signal); } catch { /* already gone */ } };
for (const s of forwarded) process.on(s, forward);
child.on("error", (err) => {
  process.stderr.write(`rewardsim: cannot run ${bin}: ${err.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the simulator saw.
    for (const s of forwarded) process.removeListener(s, forward);
    process.exitCode = 128 + (constants.signals[signal] ?? 0); // a signal Node ignores
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
