// rewardsim for Node tests: start or attach a simulator, give each test its
// own channel (like DEMOBANK, with a key of its own), call the service as that
// publisher (signing every request, verifying every signed answer), assert
// what was called (verify), move the channel's clock and catch its webhook
// pushes. Node's own crypto, http and fetch only: no runtime dependency.
"use strict";
const { spawn } = require("node:child_process");
const { AssertionError } = require("node:assert");
const { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, sign, verify: verifySignature } = require("node:crypto");
const { rm } = require("node:fs/promises");
const { createServer } = require("node:http");
const { tmpdir } = require("node:os");
const { appendFileSync } = require("node:fs");
const { join, relative, sep } = require("node:path");
const { createInterface } = require("node:readline");
const { promisify } = require("node:util");
const { resolveBinary } = require("./binary.cjs");
const { selfSignedCertificate } = require("./cert.cjs");
const { tempDir, writeChannelFiles } = require("./files.cjs");

const generateKeyPairAsync = promisify(generateKeyPair);

/** A failure answer of the service (or of the control API), with its reason. */
class RewardsimError extends Error {
  constructor(endpoint, { status, body, reason, seq, message } = {}) {
    const short = typeof body === "string" ? body : JSON.stringify(body);
    super(message ?? `${endpoint}: HTTP ${status} ${short?.slice(0, 300) ?? ""}${reason ? ` (reason: ${reason})` : ""}`);
    this.name = "RewardsimError";
    this.endpoint = endpoint;
    this.status = status;
    this.body = body;
    this.reason = reason ?? null;
    this.seq = seq ?? null;
    // The contract's error fields, when the body has them.
    this.errorString = body?.ERRORSTRING ?? null;
    this.errorCode = body?.errorCode ?? null;
  }
}

function env(name, fallback) {
  const v = process.env[name];
  return v === undefined || v === "" ? fallback : v;
}

async function readBody(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// A call that got no answer, said with its URL and cause (fetch says
// only "fetch failed").
function unanswered(endpoint, url, err) {
  const code = err?.cause?.code;
  const why = code === "ECONNREFUSED" ? "connection refused (nothing listens there: is the simulator running, and is the URL right?)"
    : err?.cause?.message ?? err?.message ?? String(err);
  return new RewardsimError(endpoint, { message: `${endpoint} at ${url}: ${why}` });
}

// Reads the serve start lines ("rewardsim: all listening on http://...")
// until both the public and the control listeners are known.
function listeners(child, bin, timeout, stderr) {
  return new Promise((resolve, reject) => {
    const found = {};
    const timer = setTimeout(() => fail(new Error(`rewardsim serve did not report its listeners within ${timeout} ms: ${stderr()}`)), timeout);
    const fail = (err) => { clearTimeout(timer); reject(err); };
    child.once("error", (err) => fail(new Error(`cannot start ${bin} (set REWARDSIM_BIN or the start option bin): ${err.message}`)));
    const early = (code) => fail(new Error(`rewardsim serve exited (${code}) before listening: ${stderr()}`));
    child.once("exit", early);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = /^rewardsim: (\S+) listening on (\S+)$/.exec(line.trim());
      if (!m) return;
      found[m[1]] = m[2];
      if (found.all && found.control) {
        clearTimeout(timer);
        child.removeListener("exit", early);
        resolve(found);
      }
    });
  });
}

/**
 * Starts `rewardsim serve` on free loopback ports: { scenario, flags, bin,
 * env, dataDir, timeout }. The binary: bin, REWARDSIM_BIN, the platform
 * package, PATH. Its standard input is a pipe this process holds open and
 * never writes: when this process ends in any way (kill -9 included), the
 * pipe closes and serve (--exit-on-stdin-eof) stops and removes the
 * temporary data folder it created (--remove-data-on-exit); a dataDir given
 * here is kept. A failed start leaves no folder.
 */
async function startRewardsim(options = {}) {
  // Under rewardsim sweep: the sweep's simulator, whose run's channel
  // (REWARDSIM_LIKE) new channels copy, so a suite runs there unchanged.
  if (underSweep()) return attachRewardsim();
  const binary = resolveBinary(options.bin);
  const bin = binary.path;
  const ownData = options.dataDir === undefined;
  // A path that does not exist yet: serve --remove-data-on-exit creates the
  // folder and removes only a folder it created.
  const dataDir = options.dataDir ?? join(tmpdir(), `rewardsim-${randomBytes(12).toString("hex")}`);
  const args = ["serve", "--data", dataDir, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
    "--log-level", "error", "--exit-on-stdin-eof", ...(ownData ? ["--remove-data-on-exit"] : []),
    ...(options.scenario ? ["--scenario", options.scenario] : []), ...(options.flags ?? []), ...(options.args ?? [])];
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env }, windowsHide: true });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
  const kill = () => { try { child.kill("SIGTERM"); } catch { /* already gone */ } };
  process.once("exit", kill);
  const exited = new Promise((r) => child.once("exit", r));
  let urls;
  try {
    urls = await listeners(child, bin, options.timeout ?? 15000, () => stderr);
  } catch (err) {
    process.removeListener("exit", kill);
    kill();
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) await exited;
    if (ownData) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  // Neither the simulator nor its pipes keep this process alive; stdin
  // stays open (never ended) until this process is gone.
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr]) s.unref?.();
  child.stdin.on("error", () => {});
  child.stdout.resume();
  return new Rewardsim({
    publicUrl: urls.all,
    controlUrl: urls.control,
    process: { pid: child.pid, dataDir, binary: bin, from: binary.from },
    async onClose() {
      process.removeListener("exit", kill);
      if (child.exitCode === null && child.signalCode === null) {
        child.ref(); // the exit is awaited: keep the event loop alive for it
        kill();
        await exited;
      }
      if (ownData) await rm(dataDir, { recursive: true, force: true });
    },
  });
}

/** Whether this process runs under rewardsim sweep, whose variables name its simulator (docs/sweep.md). */
function underSweep() {
  return process.env.REWARDSIM_SWEEP_ROW !== undefined && !!env("REWARDSIM_URL", undefined) && !!env("REWARDSIM_CONTROL_URL", undefined);
}

// Under rewardsim sweep, a channel like the sweep's --like is made like
// the run's channel instead, which is like it too and carries the run's fault.
function sweepLike(like) {
  return underSweep() && like === env("REWARDSIM_SWEEP_LIKE", undefined) && env("REWARDSIM_LIKE", undefined) ? env("REWARDSIM_LIKE") : like;
}

// Tells rewardsim sweep which test a channel is for: a line
// "CHANNEL<TAB>TEST" appended to REWARDSIM_SWEEP_CHANNELS. The test is
// the test file (node --test runs each in a process of its own), relative
// to the working folder, unless named.
function noteSweepChannel(name, test) {
  const file = env("REWARDSIM_SWEEP_CHANNELS", undefined);
  if (!file) return;
  const t = test ?? (process.argv[1] ? relative(process.cwd(), process.argv[1]).split(sep).join("/") : undefined);
  if (t) appendFileSync(file, `${name}\t${t}\n`);
}

/**
 * Attaches to a running simulator: attachRewardsim(publicUrl, controlUrl) or
 * attachRewardsim({ publicUrl, controlUrl, rewardsUrl, bankUrl, hotdealsUrl, controlToken }),
 * else REWARDSIM_URL and REWARDSIM_CONTROL_URL. The control URL is never
 * guessed from the public one: a missing one is an error.
 */
async function attachRewardsim(publicUrl, controlUrl) {
  const o = typeof publicUrl === "object" && publicUrl !== null ? publicUrl : { publicUrl, controlUrl };
  const pub = o.publicUrl ?? env("REWARDSIM_URL", undefined);
  const ctl = o.controlUrl ?? env("REWARDSIM_CONTROL_URL", undefined);
  if (!pub || !ctl) {
    throw new Error(`attachRewardsim: give ${!pub ? "publicUrl (or REWARDSIM_URL)" : ""}${!pub && !ctl ? " and " : ""}` +
      `${!ctl ? "controlUrl (or REWARDSIM_CONTROL_URL)" : ""}; the control URL is never guessed from the public one`);
  }
  const sim = new Rewardsim({ ...o, publicUrl: pub, controlUrl: ctl });
  await sim.health();
  return sim;
}

// The channel's key: the team's own (privateKey: PEM or KeyObject, with a
// self-signed certificate for it unless one is given), a certificate only
// (no signing), or one the library makes (keyOrigin "library").
async function channelKey({ privateKey, certificate }, name) {
  if (privateKey) {
    const key = typeof privateKey === "string" || Buffer.isBuffer(privateKey) ? createPrivateKey(privateKey) : privateKey;
    return { privateKey: key, certificate: certificate ?? selfSignedCertificate(key, name) };
  }
  if (certificate) return { privateKey: null, certificate: String(certificate) };
  const pair = await generateKeyPairAsync("rsa", { modulusLength: 2048 });
  return { privateKey: pair.privateKey, certificate: selfSignedCertificate(pair.privateKey, name), origin: "library" };
}

/** One simulator: its URLs, its control API, and channels made on it. */
class Rewardsim {
  #onClose;
  #channels = new Set();
  #servicePem;

  constructor({ publicUrl, controlUrl, rewardsUrl, bankUrl, hotdealsUrl, controlToken, process: started, onClose }) {
    /** For a simulator this process started: { pid, dataDir, binary, from } (from: "option", "REWARDSIM_BIN", the platform package, "PATH"). */
    this.process = started ?? null;
    this.publicUrl = publicUrl.replace(/\/$/, "");
    this.controlUrl = controlUrl.replace(/\/$/, "");
    this.rewardsUrl = (rewardsUrl ?? this.publicUrl).replace(/\/$/, "");
    this.bankUrl = (bankUrl ?? this.publicUrl).replace(/\/$/, "");
    this.hotdealsUrl = (hotdealsUrl ?? this.publicUrl).replace(/\/$/, "");
    this.controlToken = controlToken ?? env("REWARDSIM_CONTROL_TOKEN", undefined);
    this.#onClose = onClose;
  }

  /** Calls the control API; a non-2xx answer rejects with a RewardsimError. */
  async control(method, path, body) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.controlToken) headers["X-Rewardsim-Control-Token"] = this.controlToken;
    const res = await fetch(this.controlUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .catch((err) => { throw unanswered(`${method} ${path}`, this.controlUrl + path, err); });
    const parsed = res.status === 204 ? null : await readBody(res);
    if (!res.ok) {
      const reason = res.headers.get("x-rewardsim-reason");
      throw new RewardsimError(`${method} ${path}`, {
        status: res.status, body: parsed, reason,
        message: `${method} ${path}: HTTP ${res.status} ${reason ?? (typeof parsed === "string" ? parsed : JSON.stringify(parsed))}`,
      });
    }
    return parsed;
  }

  /** GET /__sim/health. */
  health() {
    return this.control("GET", "/__sim/health");
  }

  /** The service certificate's PEM (GET /__sim/certs/service.pem): it verifies the simulator's signed answers. */
  async serviceCertificatePem() {
    if (!this.#servicePem) {
      const res = await fetch(this.controlUrl + "/__sim/certs/service.pem", {
        headers: this.controlToken ? { "X-Rewardsim-Control-Token": this.controlToken } : {},
      });
      if (!res.ok) throw new RewardsimError("GET /__sim/certs/service.pem", { status: res.status, body: await res.text() });
      this.#servicePem = await res.text();
    }
    return this.#servicePem;
  }

  /** The service's public key, a KeyObject of serviceCertificatePem(). */
  async serviceKey() {
    return createPublicKey(await this.serviceCertificatePem());
  }

  /**
   * A fresh run-time channel like DEMOBANK (its campaigns, offers with their
   * own stock, switches): { name, prefix = "T", like, privateKey, certificate,
   * webhookUrl, appKey, secKey, test }. test names the test the channel is for
   * to rewardsim sweep (default: the test file). like defaults to REWARDSIM_LIKE, else
   * DEMOBANK; the simulator copies the like channel's run-time fault rules. With neither
   * privateKey nor certificate the library makes an RSA key and registers it
   * with keyOrigin "library"; with a certificate only, ch.publisher is absent.
   */
  async newChannel(options = {}) {
    const likeEnv = options.like === undefined ? env("REWARDSIM_LIKE", undefined) : undefined;
    const name = options.name ?? `${options.prefix ?? "T"}-${randomBytes(6).toString("hex").toUpperCase()}`;
    const key = await channelKey(options, name);
    const spec = {
      name,
      like: sweepLike(options.like ?? likeEnv ?? "DEMOBANK"),
      certificate: key.certificate,
      appKey: options.appKey ?? `APP${randomBytes(6).toString("hex").toUpperCase()}`,
      secKey: options.secKey ?? randomBytes(12).toString("hex"),
      ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
      ...(key.origin ? { keyOrigin: key.origin } : {}),
    };
    const info = await this.control("POST", "/__sim/channels", spec).catch((err) => {
      // A simulator older than keyOrigin refuses the field: register without it.
      if (err.status !== 400 || !spec.keyOrigin || !/keyOrigin/.test(err.message)) throw err;
      delete spec.keyOrigin;
      return this.control("POST", "/__sim/channels", spec);
    });
    const ch = new Channel(this, { spec, info, privateKey: key.privateKey, servicePem: await this.serviceCertificatePem() });
    noteSweepChannel(name, options.test);
    this.#channels.add(ch);
    return ch;
  }

  /** Every behaviour switch of a channel (default: every channel's): value in force, default, scenario value, overrides. */
  switches({ channel } = {}) {
    return this.control("GET", `/__sim/switches${channel ? `?channel=${encodeURIComponent(channel)}` : ""}`);
  }

  /** Overrides a behaviour switch (name, as "coupons.duplicate") for a channel, default every channel; kept across a restart. */
  setSwitch(name, value, { channel } = {}) {
    return this.control("POST", "/__sim/switches", { name, value: String(value), ...(channel ? { channel } : {}) });
  }

  /** Puts the scenario's value back: of one switch, or every one (name omitted), for a channel, default every channel. */
  resetSwitch(name, { channel } = {}) {
    const path = name ? `/__sim/switches/${encodeURIComponent(name)}` : "/__sim/switches";
    return this.control("DELETE", `${path}${channel ? `?channel=${encodeURIComponent(channel)}` : ""}`);
  }

  /**
   * Sets a latency profile (POST /__sim/latency, docs/latency.md): { endpoint, channel?, fixed | uniform: {min, max}
   * | lognormal: {median, p99}, max?, seed? }, durations as Go writes them ("250ms"); kept across a restart.
   */
  latency(profile) {
    return this.control("POST", "/__sim/latency", profile);
  }

  /** The latency profiles in force: { profiles (run-time), scenarios: { name: [profile] } }. */
  latencies() {
    return this.control("GET", "/__sim/latency");
  }

  /** Removes run-time latency profiles: of an endpoint (default every one) for a channel (default every channel's). */
  removeLatency({ endpoint, channel } = {}) {
    const q = new URLSearchParams({ ...(endpoint ? { endpoint } : {}), ...(channel ? { channel } : {}) }).toString();
    return this.control("DELETE", `/__sim/latency${q ? `?${q}` : ""}`);
  }

  /**
   * The conformance report (GET /__sim/report, schemas/report.json): { channel, failOn, refTokenPerHour }.
   * channel: a name, CHANNELID or Channel; absent, every channel. failOn ("error", "warning",
   * "info" or "none"; absent, "none"): rejects with node:assert's AssertionError listing the
   * findings of that severity or worse, as `rewardsim report --fail-on` exits 1 on them.
   */
  async report({ channel, failOn = "none", refTokenPerHour } = {}) {
    const min = failRank(failOn);
    const name = typeof channel === "object" && channel !== null ? channel.name : channel;
    const q = new URLSearchParams({
      ...(name ? { channel: name } : {}), ...(refTokenPerHour !== undefined ? { refTokenPerHour: String(refTokenPerHour) } : {}),
    }).toString();
    const report = await this.control("GET", `/__sim/report${q ? `?${q}` : ""}`);
    const failing = (report.findings ?? []).filter((f) => severityRank[f.severity] >= min);
    if (failing.length) {
      throw new AssertionError({
        message: `conformance report${name ? ` of channel ${name}` : ""}: ${failing.length} finding(s) of severity ${failOn} or worse` +
          `\n${failing.map(describeFinding).join("\n")}`,
        actual: failing,
        expected: [],
        operator: "report",
      });
    }
    return report;
  }

  /** Closes every channel's webhook inbox and stops the simulator if this process started it. */
  async close() {
    await Promise.all([...this.#channels].map((ch) => ch.closeInbox()));
    this.#channels.clear();
    await this.#onClose?.();
  }
}

function describeWhere(where) {
  return Object.keys(where ?? {}).length ? ` where ${JSON.stringify(where)}` : "";
}

// A near miss as the verify answer gives it: its sequence, endpoint and the
// first predicate it fails.
function describeMiss(m) {
  if (typeof m === "string") return m;
  const why = m.failed ?? m.mismatch ?? m.reason;
  const head = [m.seq !== undefined ? `#${m.seq}` : null, m.endpoint].filter(Boolean).join(" ");
  return why !== undefined ? `${head}: ${typeof why === "string" ? why : JSON.stringify(why)}` : JSON.stringify(m);
}

// The report's severities, least first, as rewardsim report --fail-on ranks them.
const severityRank = { info: 1, warning: 2, error: 3 };

// report's failOn: the least severity that fails; "none" fails on nothing.
function failRank(failOn) {
  if (failOn === "none") return Infinity;
  const r = severityRank[failOn];
  if (r === undefined) throw new TypeError(`report: failOn ${JSON.stringify(failOn)}: want "error", "warning", "info" or "none"`);
  return r;
}

// A finding as `rewardsim report` prints it: rule, clause, count, its
// example exchange and the advice.
function describeFinding(f) {
  const e = f.example ?? {};
  return `  ${f.severity} ${f.clause} ${f.id} x${f.count}: ${f.title}\n` +
    `    e.g. #${e.seq} ${e.method} ${e.path}: ${e.detail}\n    advice: ${f.advice}` +
    (f.reading ? `\n    the simulator's reading: ${f.reading}` : "");
}

// verify's count: exactly one of times, never, or a range (atLeast and/or atMost).
function countOf({ times, atLeast, atMost, never }) {
  if (never !== undefined && never !== false && (times !== undefined || atLeast !== undefined || atMost !== undefined)) {
    throw new TypeError("verify: never excludes times, atLeast and atMost");
  }
  if (times !== undefined && (atLeast !== undefined || atMost !== undefined)) {
    throw new TypeError("verify: times excludes atLeast and atMost");
  }
  if (never) return { body: { times: 0 }, want: "never", expected: 0 };
  if (times !== undefined) return { body: { times }, want: `exactly ${times} time(s)`, expected: times };
  if (atLeast !== undefined && atMost !== undefined) return { body: { atLeast, atMost }, want: `between ${atLeast} and ${atMost} times`, expected: atLeast };
  if (atMost !== undefined) return { body: { atMost }, want: `at most ${atMost} time(s)`, expected: atMost };
  return { body: { atLeast: atLeast ?? 1 }, want: `at least ${atLeast ?? 1} time(s)`, expected: atLeast ?? 1 };
}

// The request of a journal entry as the publisher meant it: an envelope's
// decoded BDATA, a JSON body, else the query.
function decodedRequest(e) {
  return e.request?.bdata ?? e.request?.body ?? e.query ?? null;
}

/** One channel: its credentials, publisher client, verify, clock, faults, state and webhook inbox. */
class Channel {
  #spec;
  #inbox;
  #privateKey;
  #servicePem;
  #publisher;

  constructor(sim, { spec, info, privateKey, servicePem }) {
    this.sim = sim;
    this.name = spec.name;
    /** The control API's answer for the channel (POST, GET or PATCH /__sim/channels). */
    this.info = info ?? {};
    this.#spec = spec;
    this.#privateKey = privateKey;
    this.#servicePem = servicePem;
    if (privateKey) this.#publisher = new Publisher(this, { privateKey, serviceKey: createPublicKey(servicePem) });
  }

  /** Whether the library holds this channel's private key (ch.publisher works). */
  get canSign() {
    return this.#publisher !== undefined;
  }

  /** The library's own signing client; absent (throws why) for a channel registered with a certificate only. */
  get publisher() {
    if (!this.#publisher) {
      throw new Error(`channel ${this.name} was registered with a certificate only: the library has no private key ` +
        "to sign as it, so ch.publisher is absent. Call through your service (configured from ch.credentials or " +
        "ch.env()), or give newChannel({ privateKey }) to have both.");
    }
    return this.#publisher;
  }

  /**
   * Everything a service needs to call the simulator as this channel. appKey,
   * secKey and the certificate are the simulator's answer for the channel
   * (a shared simulator may hand out fresh ones); privateKeyPem is PKCS#8,
   * null for a channel registered with a certificate only.
   */
  get credentials() {
    const i = this.info;
    return Object.freeze({
      name: this.name,
      channelId: i.channelId || this.name,
      appKey: i.appKey || this.#spec.appKey,
      secKey: i.secKey || this.#spec.secKey,
      privateKeyPem: this.#privateKey ? this.#privateKey.export({ type: "pkcs8", format: "pem" }) : null,
      certificatePem: i.certificate || this.#spec.certificate,
      serviceCertificatePem: this.#servicePem,
      rewardsUrl: this.sim.rewardsUrl,
      bankUrl: this.sim.bankUrl,
      hotdealsUrl: this.sim.hotdealsUrl,
    });
  }

  /**
   * The credentials as environment variables for a child process, each name
   * prefix + CHANNEL_NAME, CHANNEL_ID, APP_KEY, SEC_KEY, PRIVATE_KEY (only
   * when the library holds the key), CERTIFICATE, SERVICE_CERTIFICATE,
   * REWARDS_URL, BANK_URL, HOTDEALS_URL. PEMs keep their newlines.
   */
  env(prefix = "PARTNER_") {
    const c = this.credentials;
    const vars = {
      CHANNEL_NAME: c.name, CHANNEL_ID: c.channelId, APP_KEY: c.appKey, SEC_KEY: c.secKey,
      PRIVATE_KEY: c.privateKeyPem, CERTIFICATE: c.certificatePem, SERVICE_CERTIFICATE: c.serviceCertificatePem,
      REWARDS_URL: c.rewardsUrl, BANK_URL: c.bankUrl, HOTDEALS_URL: c.hotdealsUrl,
    };
    return Object.fromEntries(Object.entries(vars).filter(([, v]) => v != null).map(([k, v]) => [prefix + k, String(v)]));
  }

  /**
   * Writes the credentials as files into dir (created when missing): key.pem,
   * cert.pem, service.pem and channel.env (ch.env(prefix) with *_FILE paths
   * for the PEMs). key.pem and channel.env are the owner's alone (0600).
   * Give it a folder that goes with the test (tempDir(t)). Resolves with dir.
   */
  writeFiles(dir, { prefix = "PARTNER_" } = {}) {
    return writeChannelFiles(this, dir, { prefix });
  }

  /** Changes this channel's webhookUrl alone (PATCH /__sim/channels/{name}): its credentials, state, faults, clock and journal stay. */
  async setWebhookUrl(url) {
    this.info = await this.sim.control("PATCH", `/__sim/channels/${encodeURIComponent(this.name)}`, { webhookUrl: url });
    return this.info;
  }

  /** GET /__sim/channels/{name}: the channel as the simulator has it now (also refreshes info). */
  async refresh() {
    this.info = await this.sim.control("GET", `/__sim/channels/${encodeURIComponent(this.name)}`);
    return this.info;
  }

  /**
   * A watermark for verify's and findAll's since: the sequence after every
   * journal entry of this channel so far. Take one per test when tests share
   * a channel concurrently (publisher.lastSeq is shared by them all).
   */
  async mark() {
    let last = this.#publisher?.lastSeq ?? -1;
    for (let after; ;) {
      const page = await this.journal({ limit: "1000", ...(after !== undefined ? { after: String(after) } : {}) });
      for (const e of page.entries ?? []) last = Math.max(last, e.seq);
      if (page.next === undefined || page.next === null || !(page.entries ?? []).length) break;
      after = page.next;
    }
    return last + 1;
  }

  /**
   * The decoded requests (envelope BDATA, JSON body, else query) of this
   * channel's calls to endpoint, oldest first; { since } counts from a mark.
   */
  async findAll(endpoint, { since } = {}) {
    const out = [];
    for (let after = since === undefined ? undefined : since - 1; ;) {
      const q = { endpoint, kind: "exchange", limit: "1000", ...(after !== undefined && after >= 0 ? { after: String(after) } : {}) };
      const page = await this.journal(q);
      for (const e of page.entries ?? []) if (since === undefined || e.seq >= since) out.push(decodedRequest(e));
      if (page.next === undefined || page.next === null || !(page.entries ?? []).length) break;
      after = page.next;
    }
    return out;
  }

  /**
   * Counts this channel's exchanges of endpoint whose request matches every
   * predicate of where (JSON pointer -> typed value, { regex } in RE2, or { text }: the value's text),
   * and rejects with node:assert's AssertionError naming the near misses when
   * the count does not hold. One of times, never, or atLeast / atMost
   * (default atLeast: 1). An unknown channel or a pointer that names no field
   * of the endpoint's request rejects with the simulator's reason.
   */
  async verify({ endpoint, where = {}, since, ...count } = {}) {
    const { body: c, want, expected } = countOf(count);
    const body = { channel: this.name, endpoint, where, ...c };
    if (since !== undefined) body.since = since;
    const res = await this.sim.control("POST", "/__sim/verify", body);
    if (!res.ok) {
      const misses = (res.nearMisses ?? []).map((m) => `  ${describeMiss(m)}`).join("\n");
      throw new AssertionError({
        message: `expected ${endpoint}${describeWhere(where)} on channel ${this.name} ${want}, counted ${res.count}` +
          (misses ? `\nnear misses:\n${misses}` : ""),
        actual: res.count,
        expected,
        operator: "verify",
      });
    }
    return res;
  }

  /** Moves this channel's clock only: "90m", "1h", or milliseconds. Pushes that became due are attempted after it resolves (becameDue names them). */
  advanceClock(by) {
    return this.sim.control("POST", "/__sim/clock/advance", { channel: this.name, by: typeof by === "number" ? `${by}ms` : by });
  }

  /** This channel's clock (GET /__sim/clock?channel=). */
  clock() {
    return this.sim.control("GET", `/__sim/clock?channel=${encodeURIComponent(this.name)}`);
  }

  /** Adds a fault rule for this channel (the channel is filled in). */
  fault(rule) {
    return this.sim.control("POST", "/__sim/faults", { channel: this.name, ...rule });
  }

  /** Sets a latency profile for this channel (sim.latency with this channel): { endpoint, fixed | uniform | lognormal, max?, seed? }. */
  latency(profile) {
    return this.sim.latency({ ...profile, channel: this.name });
  }

  /** Overrides a behaviour switch for this channel (sim.setSwitch with this channel). */
  setSwitch(name, value) {
    return this.sim.setSwitch(name, value, { channel: this.name });
  }

  /** Puts the scenario's value back for this channel: of one switch, or every one. */
  resetSwitch(name) {
    return this.sim.resetSwitch(name, { channel: this.name });
  }

  /**
   * Holds this channel to a capacity limit (docs/limits.md), over its scenario's and kept across a
   * restart: { inFlight, rate, burst, wait } (wait a Go duration such as "250ms", or milliseconds).
   * A call over it waits up to wait, then is refused in the endpoint's failure shape. Resolves to the
   * limit in force with its counts.
   */
  limit({ inFlight, rate, burst, wait } = {}) {
    const body = { channel: this.name };
    for (const [k, v] of Object.entries({ inFlight, rate, burst })) if (v !== undefined) body[k] = v;
    if (wait !== undefined) body.wait = typeof wait === "number" ? `${wait}ms` : wait;
    return this.sim.control("POST", "/__sim/limits", body);
  }

  /** This channel's capacity limit in force, with what it admitted, held and refused; null when none. */
  async limits() {
    const out = await this.sim.control("GET", `/__sim/limits?channel=${encodeURIComponent(this.name)}`);
    return out?.limits?.[0] ?? null;
  }

  /** Removes this channel's run-time limit: its scenario's, if any, is in force again. */
  removeLimit() {
    return this.sim.control("DELETE", `/__sim/limits/${encodeURIComponent(this.name)}`);
  }

  /** Schedules a coupon-status push to this channel's webhookUrl: { offerId, reason, ... }. Resolves at once, before the push is attempted: await it with webhookInbox().next(). */
  webhook(push) {
    return this.sim.control("POST", "/__sim/webhooks", { channel: this.name, ...push });
  }

  /** Wipes this channel's state (tokens, sessions, cards, coupons, pushes), fault rules and journal. */
  async reset() {
    await this.sim.control("POST", "/__sim/state/reset", { channel: this.name });
    const faults = await this.sim.control("GET", "/__sim/faults");
    for (const f of faults?.rules ?? []) {
      if (f.channel === this.name && f.id) await this.sim.control("DELETE", `/__sim/faults/${encodeURIComponent(f.id)}`);
    }
    await this.sim.control("DELETE", `/__sim/journal?channel=${encodeURIComponent(this.name)}`);
  }

  /** The conformance report of this channel: sim.report({ ...options, channel: this }). */
  report(options = {}) {
    return this.sim.report({ ...options, channel: this });
  }

  /** This channel's journal entries (GET /__sim/journal?channel=), with more filters in query. */
  journal(query = {}) {
    const q = new URLSearchParams({ channel: this.name, ...query });
    return this.sim.control("GET", `/__sim/journal?${q}`);
  }

  /**
   * A local HTTP endpoint on 127.0.0.1, made this channel's webhookUrl: it
   * answers {"status":"OK"} and keeps every push for next().
   */
  async webhookInbox() {
    if (this.#inbox) return this.#inbox;
    const inbox = new WebhookInbox();
    await inbox.listen();
    try {
      await this.setWebhookUrl(inbox.url); // the webhookUrl alone: credentials stay
    } catch (err) {
      await inbox.close();
      throw err;
    }
    this.#inbox = inbox;
    return inbox;
  }

  /** Closes the webhook inbox, if one was opened. */
  async closeInbox() {
    await this.#inbox?.close();
    this.#inbox = undefined;
  }
}

/** Coupon-status pushes received for one channel. */
class WebhookInbox {
  #server;
  #pushes = [];
  #waiters = [];
  /** Every push received, in order. */
  received = [];

  async listen() {
    this.#server = createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        let push;
        try {
          push = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          res.writeHead(400, { "Content-Type": "application/json" }).end('{"status":"BAD_JSON"}');
          return;
        }
        res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":"OK"}');
        this.received.push(push);
        this.#pushes.push(push);
        this.#wake();
      });
    });
    await new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(0, "127.0.0.1", resolve);
    });
    this.#server.unref();
    this.url = `http://127.0.0.1:${this.#server.address().port}/coupon-status`;
  }

  #wake() {
    for (const w of [...this.#waiters]) {
      const i = this.#pushes.findIndex((p) => w.eventType === undefined || p.eventType === w.eventType);
      if (i < 0) continue;
      const [push] = this.#pushes.splice(i, 1);
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      clearTimeout(w.timer);
      w.resolve(push);
    }
  }

  /** The next push not yet taken (of that eventType, if given); rejects after timeout ms (default 5000). */
  next(eventType, { timeout = 5000 } = {}) {
    return new Promise((resolve, reject) => {
      const w = { eventType, resolve };
      w.timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        reject(new AssertionError({
          message: `no ${eventType ?? "webhook"} push arrived at ${this.url} within ${timeout} ms (received: ${JSON.stringify(this.received)})`,
          operator: "webhookInbox.next",
        }));
      }, timeout);
      this.#waiters.push(w);
      this.#wake();
    });
  }

  async close() {
    if (!this.#server) return;
    this.#server.closeAllConnections?.();
    await new Promise((r) => this.#server.close(() => r()));
    this.#server = undefined;
  }
}

// ddMMyyyyHHmmss in India time, as GetReward's dateandtime asks.
function dateandtime(d = new Date()) {
  const ist = new Date(d.getTime() + 330 * 60 * 1000);
  const p = (n) => String(n).padStart(2, "0");
  return p(ist.getUTCDate()) + p(ist.getUTCMonth() + 1) + ist.getUTCFullYear() + p(ist.getUTCHours()) + p(ist.getUTCMinutes()) + p(ist.getUTCSeconds());
}

/**
 * The channel's publisher: signs every envelope with the channel's key,
 * verifies every signed answer with the service key, and rejects with a
 * RewardsimError on every failure answer.
 */
class Publisher {
  #key;
  #serviceKey;

  constructor(channel, { privateKey, serviceKey }) {
    this.channel = channel;
    this.#key = privateKey;
    this.#serviceKey = serviceKey;
    /** X-Rewardsim-Seq of the last answer: a watermark for verify's since. */
    this.lastSeq = null;
  }

  get #sim() {
    return this.channel.sim;
  }

  /** The channel's app key, as the simulator has it. */
  get appKey() {
    return this.channel.credentials.appKey;
  }

  /** The channel's secret key, as the simulator has it. */
  get secKey() {
    return this.channel.credentials.secKey;
  }

  get #name() {
    return this.channel.name;
  }

  /** The envelope {CHANNELID, SIGN, BDATA} of payload, signed with the channel's key. */
  seal(payload) {
    const BDATA = Buffer.from(JSON.stringify(payload)).toString("base64");
    const SIGN = sign("sha256", Buffer.from(BDATA), this.#key).toString("base64");
    return { CHANNELID: this.#name, SIGN, BDATA };
  }

  async #send(endpoint, url, { method = "POST", body, bearer, appKey } = {}) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (appKey) {
      headers.Authorization = `ServiceAppKey ${this.appKey}:${this.secKey}`;
      headers["X-CHANNELID"] = this.#name;
    }
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const seq = res.headers.get("x-rewardsim-seq");
    if (seq !== null) this.lastSeq = Number(seq);
    return {
      endpoint, status: res.status, body: await readBody(res),
      reason: res.headers.get("x-rewardsim-reason"), seq: seq === null ? null : Number(seq),
    };
  }

  #fail(r, message) {
    return new RewardsimError(r.endpoint, { status: r.status, body: r.body, reason: r.reason, seq: r.seq, message });
  }

  // A signed endpoint's answer: the bare failure shape first, then the
  // signature, then the decoded BDATA (status false is a failure too).
  #open(r) {
    const b = r.body;
    if (r.status >= 400 || typeof b !== "object" || b === null || "STATUS" in b || typeof b.BDATA !== "string") throw this.#fail(r);
    if (typeof b.SIGN !== "string" || !verifySignature("sha256", Buffer.from(b.BDATA), this.#serviceKey, Buffer.from(b.SIGN, "base64"))) {
      throw this.#fail(r, `${r.endpoint}: the answer's SIGN does not verify with the service certificate`);
    }
    const data = JSON.parse(Buffer.from(b.BDATA, "base64").toString("utf8"));
    if (data?.status === false) throw new RewardsimError(r.endpoint, { status: r.status, body: data, reason: r.reason, seq: r.seq });
    return data;
  }

  // A plain JSON answer of the rewards host: HTTP errors and status false fail.
  #plain(r) {
    if (r.status >= 400 || typeof r.body !== "object" || r.body === null || r.body.status === false) throw this.#fail(r);
    return r.body;
  }

  // A coupon-host answer: its body status must be 200.
  #coupon(r) {
    if (typeof r.body !== "object" || r.body === null || r.body.status !== 200) throw this.#fail(r);
    return r.body.data;
  }

  async #signed(endpoint, url, payload, bearer) {
    return this.#open(await this.#send(endpoint, url, { body: this.seal(payload), bearer }));
  }

  /** getSecuredReferenceToken: the referenceKey. */
  async referenceToken() {
    return (await this.#signed("getSecuredReferenceToken", `${this.#sim.rewardsUrl}/api/getSecuredReferenceToken`, { bName: this.#name })).referenceKey;
  }

  /** GetReward (with a fresh reference token unless one is given): the answer {status, message, rewards, ...}. */
  async getReward({ virtualId, extTransactionId, amount, triggerEventType = "UPI", dateandtime: when, referenceToken, ...extra }) {
    const token = referenceToken ?? (await this.referenceToken());
    const body = { channelName: this.#name, virtualId, triggerEventType, extTransactionId, ...(amount === undefined ? {} : { amount }), dateandtime: when ?? dateandtime(), ...extra };
    return this.#plain(await this.#send("GetReward", `${this.#sim.rewardsUrl}/api/GetReward`, { body, bearer: token }));
  }

  /** GetAuthToken: the user token of virtualId. */
  async userToken(virtualId) {
    return (await this.#signed("GetAuthToken", `${this.#sim.rewardsUrl}/api/GetAuthToken`, { channelName: this.#name, virtualId })).token;
  }

  /** GetAllScratchCardsByUserId: the user's cards (rewards[]). */
  async cards(userToken, { page, limit } = {}) {
    const q = new URLSearchParams({ ...(page ? { page: String(page) } : {}), ...(limit ? { limit: String(limit) } : {}) }).toString();
    const r = await this.#send("GetAllScratchCardsByUserId", `${this.#sim.rewardsUrl}/api/GetAllScratchCardsByUserId${q ? `?${q}` : ""}`, { method: "GET", bearer: userToken });
    return this.#plain(r).rewards;
  }

  /** FetchRewardInfo: reveals a card, the verified BDATA. */
  reveal({ userToken, virtualId, rewardId }) {
    return this.#signed("FetchRewardInfo", `${this.#sim.rewardsUrl}/api/FetchRewardInfo`, { channelName: this.#name, rewardId: String(rewardId), virtualId }, userToken);
  }

  /** GenerateSessionInfoV2: a bank session id. */
  async sessionId(virtualId) {
    return (await this.#signed("GenerateSessionInfoV2", `${this.#sim.bankUrl}/api/GenerateSessionInfoV2`, { bName: this.#name, virtualId })).sessionId;
  }

  /** GetScratchCardForBank: {status, message, deepLink, banner}. */
  async bankCard({ virtualId, extTransactionId, amount = "500.00", mcc = "5411", campaignId = "CAMP-DEMO", transDateAndTime, deviceToken = "rewardsim-node" }) {
    const when = transDateAndTime ?? new Date(Date.now() + 330 * 60 * 1000).toISOString().slice(0, 19).replace("T", " ");
    const r = await this.#send("GetScratchCardForBank", `${this.#sim.bankUrl}/api/GetScratchCardForBank`, {
      body: this.seal({ virtualId, transDateAndTime: when, amount: String(amount), mcc, extTransactionId, campaignId, deviceToken }),
    });
    return this.#open(r);
  }

  /** fetchCouponCode: the delivered coupon (data). */
  async fetchCoupon({ offerId, virtualId, extTransactionId, coinsUsed }) {
    const body = { offerId, virtualId, channelName: this.#name, extTransactionId, coinsUsed: String(coinsUsed) };
    return this.#coupon(await this.#send("fetchCouponCode", `${this.#sim.hotdealsUrl}/api/fetchCouponCode`, { body, appKey: true }));
  }

  /** getUserCoupons: the user's coupons (of one offer, if given). */
  async userCoupons(virtualId, offerId) {
    const body = { virtualId, channelName: this.#name, ...(offerId ? { offerId } : {}) };
    return this.#coupon(await this.#send("getUserCoupons", `${this.#sim.hotdealsUrl}/api/getUserCoupons`, { body, appKey: true })).coupons;
  }

  /** getCatalogue: the channel's offers (open to virtualId, if given). */
  async catalogue(virtualId) {
    const body = { channelName: this.#name, ...(virtualId ? { virtualId } : {}) };
    return this.#coupon(await this.#send("getCatalogue", `${this.#sim.hotdealsUrl}/api/getCatalogue`, { body, appKey: true })).offers;
  }
}

module.exports = { RewardsimError, startRewardsim, attachRewardsim, Rewardsim, Channel, WebhookInbox, Publisher, tempDir };
