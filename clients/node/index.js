// rewardsim for Node tests: start or attach a simulator, give each test its
// own channel (like DEMOBANK, with a key of its own), call the service as that
// publisher (signing every request, verifying every signed answer), assert
// what was called (verify), move the channel's clock and catch its webhook
// pushes. Node's own crypto, http and fetch only: no runtime dependency.
import { spawn } from "node:child_process";
import { AssertionError } from "node:assert";
import { createPublicKey, generateKeyPair, randomBytes, sign, verify as verifySignature } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";

const generateKeyPairAsync = promisify(generateKeyPair);

/** A failure answer of the service (or of the control API), with its reason. */
export class RewardsimError extends Error {
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

/** Starts `rewardsim serve` (REWARDSIM_BIN, else `rewardsim` on PATH) on free loopback ports. */
export async function startRewardsim(options = {}) {
  const bin = options.bin ?? env("REWARDSIM_BIN", "rewardsim");
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "rewardsim-")));
  const ownData = options.dataDir === undefined;
  const args = ["serve", "--data", dataDir, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
    "--log-level", "error", ...(options.scenario ? ["--scenario", options.scenario] : []), ...(options.args ?? [])];
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...options.env } });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
  const kill = () => { try { child.kill("SIGTERM"); } catch { /* already gone */ } };
  process.once("exit", kill);
  const urls = await new Promise((resolve, reject) => {
    const found = {};
    const timer = setTimeout(() => fail(new Error(`rewardsim serve did not report its listeners within ${options.timeout ?? 15000} ms: ${stderr}`)), options.timeout ?? 15000);
    const fail = (err) => { clearTimeout(timer); kill(); reject(err); };
    child.once("error", (err) => fail(new Error(`cannot start ${bin} (set REWARDSIM_BIN or put rewardsim on PATH): ${err.message}`)));
    child.once("exit", (code) => fail(new Error(`rewardsim serve exited (${code}) before listening: ${stderr}`)));
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      // "rewardsim: all listening on http://127.0.0.1:PORT"
      const m = /^rewardsim: (\S+) listening on (\S+)$/.exec(line.trim());
      if (!m) return;
      found[m[1]] = m[2];
      if (found.all && found.control) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(found);
      }
    });
  });
  // The simulator must not keep the test process alive; it is killed on exit.
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();
  child.stdout.resume();
  const exited = new Promise((r) => child.once("exit", r));
  return new Rewardsim({
    publicUrl: urls.all,
    controlUrl: urls.control,
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

/**
 * Attaches to a running simulator: attachRewardsim(publicUrl, controlUrl) or
 * attachRewardsim({ publicUrl, controlUrl, rewardsUrl, bankUrl, hotdealsUrl, controlToken }).
 * Defaults: REWARDSIM_URL and REWARDSIM_CONTROL_URL.
 */
export async function attachRewardsim(publicUrl, controlUrl) {
  const o = typeof publicUrl === "object" && publicUrl !== null ? publicUrl : { publicUrl, controlUrl };
  const sim = new Rewardsim({
    ...o,
    publicUrl: o.publicUrl ?? env("REWARDSIM_URL", "http://127.0.0.1:8080"),
    controlUrl: o.controlUrl ?? env("REWARDSIM_CONTROL_URL", "http://127.0.0.1:8090"),
  });
  await sim.health();
  return sim;
}

/** One simulator: its URLs, its control API, and channels made on it. */
export class Rewardsim {
  #onClose;
  #channels = new Set();
  #serviceKey;

  constructor({ publicUrl, controlUrl, rewardsUrl, bankUrl, hotdealsUrl, controlToken, onClose }) {
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
    const res = await fetch(this.controlUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const parsed = res.status === 204 ? null : await readBody(res);
    if (!res.ok) {
      throw new RewardsimError(`${method} ${path}`, {
        status: res.status, body: parsed, reason: res.headers.get("x-rewardsim-reason"),
        message: `${method} ${path}: HTTP ${res.status} ${typeof parsed === "string" ? parsed : JSON.stringify(parsed)}`,
      });
    }
    return parsed;
  }

  /** GET /__sim/health. */
  health() {
    return this.control("GET", "/__sim/health");
  }

  /** The service's public key (from /__sim/certs/service.pem) that verifies signed answers. */
  async serviceKey() {
    if (!this.#serviceKey) {
      const res = await fetch(this.controlUrl + "/__sim/certs/service.pem", {
        headers: this.controlToken ? { "X-Rewardsim-Control-Token": this.controlToken } : {},
      });
      if (!res.ok) throw new RewardsimError("GET /__sim/certs/service.pem", { status: res.status, body: await res.text() });
      this.#serviceKey = createPublicKey(await res.text());
    }
    return this.#serviceKey;
  }

  /**
   * A fresh run-time channel like DEMOBANK (its campaigns, offers with their
   * own stock, switches), with a key pair and app key of its own.
   * Options: { name, like = "DEMOBANK", prefix = "T" }.
   */
  async newChannel(options = {}) {
    const name = options.name ?? `${options.prefix ?? "T"}-${randomBytes(6).toString("hex").toUpperCase()}`;
    const { publicKey, privateKey } = await generateKeyPairAsync("rsa", { modulusLength: 2048 });
    const spec = {
      name,
      like: options.like ?? "DEMOBANK",
      certificate: publicKey.export({ type: "spki", format: "pem" }),
      appKey: `APP${randomBytes(6).toString("hex").toUpperCase()}`,
      secKey: randomBytes(12).toString("hex"),
    };
    const info = await this.control("POST", "/__sim/channels", spec);
    const ch = new Channel(this, spec, privateKey, await this.serviceKey(), info);
    this.#channels.add(ch);
    return ch;
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

/** One channel: its publisher client, verify, clock, faults, state and webhook inbox. */
export class Channel {
  #spec;
  #inbox;

  constructor(sim, spec, privateKey, serviceKey, info) {
    this.sim = sim;
    this.name = spec.name;
    this.info = info;
    this.#spec = spec;
    this.publisher = new Publisher(this, { privateKey, serviceKey, appKey: spec.appKey, secKey: spec.secKey });
  }

  /**
   * Counts this channel's exchanges of endpoint whose request matches every
   * predicate of where (JSON pointer -> value or { regex }), and rejects with
   * node:assert's AssertionError naming the near misses when the count does
   * not hold. One of times, atLeast, atMost, never (default atLeast: 1).
   */
  async verify({ endpoint, where = {}, since, times, atLeast, atMost, never } = {}) {
    const body = { channel: this.name, endpoint, where };
    if (since !== undefined) body.since = since;
    let want;
    if (never) { body.times = 0; want = "never"; }
    else if (times !== undefined) { body.times = times; want = `exactly ${times} time(s)`; }
    else if (atMost !== undefined) { body.atMost = atMost; want = `at most ${atMost} time(s)`; }
    else { body.atLeast = atLeast ?? 1; want = `at least ${body.atLeast} time(s)`; }
    if (atLeast !== undefined && atMost !== undefined) { body.atLeast = atLeast; want = `between ${atLeast} and ${atMost} times`; }
    const res = await this.sim.control("POST", "/__sim/verify", body);
    if (!res.ok) {
      const misses = (res.nearMisses ?? []).map((m) => `  ${describeMiss(m)}`).join("\n");
      throw new AssertionError({
        message: `expected ${endpoint}${describeWhere(where)} on channel ${this.name} ${want}, counted ${res.count}` +
          (misses ? `\nnear misses:\n${misses}` : ""),
        actual: res.count,
        expected: body.times ?? body.atLeast ?? body.atMost,
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
      await this.sim.control("POST", "/__sim/channels", { ...this.#spec, webhookUrl: inbox.url });
    } catch (err) {
      await inbox.close();
      throw err;
    }
    this.#spec = { ...this.#spec, webhookUrl: inbox.url };
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
export class WebhookInbox {
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
export class Publisher {
  #key;
  #serviceKey;

  constructor(channel, { privateKey, serviceKey, appKey, secKey }) {
    this.channel = channel;
    this.#key = privateKey;
    this.#serviceKey = serviceKey;
    this.appKey = appKey;
    this.secKey = secKey;
    /** X-Rewardsim-Seq of the last answer: a watermark for verify's since. */
    this.lastSeq = null;
  }

  get #sim() {
    return this.channel.sim;
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
