// The channel as a service sees it (issue 39) and the simulator the package
// carries (issue 40), from a project that installed only the packed
// tarballs (clients/node_test.go runs it on Node 20, 22 and 24).
import assert, { AssertionError } from "node:assert/strict";
import { createHash, createPrivateKey, generateKeyPairSync, sign, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { attachRewardsim, Channel, startRewardsim, tempDir } from "rewardsim";

let sim;
before(async () => { sim = await startRewardsim({ flags: ["--journal-max-entries", "5000"] }); });
after(async () => { await sim?.close(); });

// What a service does with ch.credentials: sign GenerateSessionInfoV2 by hand.
async function serviceSession(c, virtualId) {
  const BDATA = Buffer.from(JSON.stringify({ bName: c.name, virtualId })).toString("base64");
  const SIGN = sign("sha256", Buffer.from(BDATA), c.privateKeyPem).toString("base64");
  const res = await fetch(`${c.bankUrl}/api/GenerateSessionInfoV2`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ CHANNELID: c.channelId, SIGN, BDATA }),
  });
  return { status: res.status, body: await res.json(), reason: res.headers.get("x-rewardsim-reason") };
}

function ownKey() {
  return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" });
}

describe("the simulator the package carries", { concurrency: true }, () => {
  test("comes from the platform package, copied once to a cache folder named by its SHA-256", { skip: !process.env.REWARDSIM_EXPECT_PACKAGED }, () => {
    assert.equal(process.env.REWARDSIM_BIN, undefined, "no REWARDSIM_BIN");
    const goOnPath = (process.env.PATH ?? "").split(delimiter).some((d) => d && existsSync(join(d, "go")));
    assert.equal(goOnPath, false, "no Go toolchain on PATH");
    assert.equal(sim.process.from, `@rewardsim/${process.platform}-${process.arch}`);
    const digest = createHash("sha256").update(readFileSync(sim.process.binary)).digest("hex");
    assert.ok(sim.process.binary.includes(digest), `${sim.process.binary} is under a folder named ${digest}`);
  });

  test("startRewardsim({ scenario, flags }) serves that scenario", { skip: !existsSync("default.yaml") }, async () => {
    const own = await startRewardsim({ scenario: "default.yaml", flags: ["--journal-max-entries", "100"] });
    try {
      const ch = await own.newChannel();
      assert.ok(await ch.publisher.sessionId("VU-SCENARIO"));
    } finally {
      await own.close();
    }
  });

  test("attach never guesses the control URL", async () => {
    const saved = process.env.REWARDSIM_CONTROL_URL;
    delete process.env.REWARDSIM_CONTROL_URL;
    try {
      await assert.rejects(attachRewardsim({ publicUrl: sim.publicUrl }), /controlUrl.*never guessed/);
    } finally {
      if (saved !== undefined) process.env.REWARDSIM_CONTROL_URL = saved;
    }
    const attached = await attachRewardsim({ publicUrl: sim.publicUrl, controlUrl: sim.controlUrl });
    assert.equal(attached.process, null);
  });

  test("require('rewardsim') gives the same classes as import", () => {
    const cjs = createRequire(import.meta.url)("rewardsim");
    assert.equal(cjs.Channel, Channel);
  });
});

describe("the channel as the service sees it", { concurrency: true }, () => {
  test("a service signing with ch.credentials is answered; the library's publisher works beside it", async () => {
    const ch = await sim.newChannel();
    const c = ch.credentials;
    for (const k of ["name", "channelId", "appKey", "secKey", "privateKeyPem", "certificatePem", "serviceCertificatePem", "rewardsUrl", "bankUrl", "hotdealsUrl"]) {
      assert.ok(c[k], `credentials.${k}`);
    }
    assert.match(c.privateKeyPem, /BEGIN PRIVATE KEY/);
    const cert = new X509Certificate(c.certificatePem);   // a certificate, for services and keystores that want one
    assert.ok(cert.checkPrivateKey(createPrivateKey(c.privateKeyPem)));
    assert.equal(cert.subject, `CN=${c.name}`);
    const r = await serviceSession(c, "VU-SVC");
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.ok(await ch.publisher.sessionId("VU-LIB"));
    const env = ch.env("PARTNER_");
    assert.equal(env.PARTNER_CHANNEL_ID, c.channelId);
    assert.equal(env.PARTNER_PRIVATE_KEY, c.privateKeyPem);
    assert.equal(env.PARTNER_HOTDEALS_URL, c.hotdealsUrl);
    assert.deepEqual(Object.keys(env).sort(), ["APP_KEY", "BANK_URL", "CERTIFICATE", "CHANNEL_ID", "CHANNEL_NAME", "HOTDEALS_URL",
      "PRIVATE_KEY", "REWARDS_URL", "SEC_KEY", "SERVICE_CERTIFICATE"].map((k) => `PARTNER_${k}`));
  });

  test("the team's own key and webhook URL stay through webhookInbox, reset and a clock move", async () => {
    const pem = ownKey();
    const ch = await sim.newChannel({ like: "DEMOBANK", privateKey: pem, webhookUrl: "http://127.0.0.1:9/hooks" });
    assert.equal(ch.credentials.privateKeyPem.trim(), pem.trim());
    assert.equal((await ch.refresh()).webhookUrl, "http://127.0.0.1:9/hooks");
    const inbox = await ch.webhookInbox();
    await ch.reset();
    await ch.advanceClock("2h");
    assert.equal((await serviceSession(ch.credentials, "VU-OWN")).status, 200);
    assert.ok(await ch.publisher.sessionId("VU-OWN"));
    assert.equal((await ch.refresh()).webhookUrl, inbox.url);
  });

  test("the team's key and webhook URL survive a restart of the simulator", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "restart-"));
    try {
      const pem = ownKey();
      let own = await startRewardsim({ dataDir });
      const ch = await own.newChannel({ privateKey: pem, webhookUrl: "http://127.0.0.1:9/kept" });
      await own.close();
      own = await startRewardsim({ dataDir });
      const info = await own.control("GET", `/__sim/channels/${ch.name}`);
      assert.equal(info.webhookUrl, "http://127.0.0.1:9/kept");
      assert.equal((await serviceSession({ ...ch.credentials, bankUrl: own.bankUrl }, "VU-RESTART")).status, 200);
      await own.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("setWebhookUrl changes that one setting; pushes go to the service's endpoint", async () => {
    const got = [];
    const server = createServer((req, res) => {
      let b = "";
      req.on("data", (d) => { b += d; }).on("end", () => { got.push(JSON.parse(b)); res.end('{"status":"OK"}'); });
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    try {
      const ch = await sim.newChannel();
      const before = ch.credentials;
      await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-WH", extTransactionId: "T-WH", coinsUsed: 100 });
      await ch.setWebhookUrl(`http://127.0.0.1:${server.address().port}/hooks`);
      assert.deepEqual({ ...ch.credentials }, { ...before });
      await ch.webhook({ offerId: "OFFER-DEMO", reason: "OUT_OF_STOCK" });
      for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(got[0]?.channelName, ch.name);
      assert.ok(await ch.publisher.sessionId("VU-WH"), "the library still signs");
    } finally {
      server.close();
    }
  });

  test("writeFiles: the credentials as files in a folder that goes with the test, secrets 0600 (issue 51)", async (t) => {
    const ch = await sim.newChannel();
    const dir = await ch.writeFiles(await tempDir(t), { prefix: "SVC_" });
    t.after(() => assert.equal(existsSync(dir), false, "tempDir(t) removes the folder after the test"));
    const env = Object.fromEntries(readFileSync(join(dir, "channel.env"), "utf8").trim().split("\n").map((l) => l.split(/=(.*)/s).slice(0, 2)));
    assert.equal(readFileSync(env.SVC_PRIVATE_KEY_FILE, "utf8"), ch.credentials.privateKeyPem);
    assert.equal(readFileSync(env.SVC_CERTIFICATE_FILE, "utf8"), ch.credentials.certificatePem);
    assert.equal(env.SVC_SEC_KEY, ch.credentials.secKey);
    assert.equal(env.SVC_PRIVATE_KEY, undefined, "the PEMs are files, not values");
    for (const f of ["key.pem", "channel.env"]) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    await ch.writeFiles(dir); // again: still the owner's alone
    assert.equal(statSync(join(dir, "key.pem")).mode & 0o777, 0o600);
  });

  test("the answer-sign faults break the SIGN the publisher checks (issue 51)", async () => {
    const ch = await sim.newChannel();
    for (const kind of ["answer-sign-other-bytes", "answer-sign-other-key", "answer-sign-absent"]) {
      await ch.fault({ endpoint: "GenerateSessionInfoV2", times: 1, action: { kind } });
      await assert.rejects(ch.publisher.sessionId("VU-SIGN"), /SIGN does not verify/, kind);
      assert.ok(await ch.publisher.sessionId("VU-SIGN"), `after ${kind}: signed again`);
    }
  });

  test("with a certificate only, ch.publisher is absent and says why", async () => {
    const mine = await sim.newChannel();
    const ch = await sim.newChannel({ certificate: mine.credentials.certificatePem });
    assert.equal(ch.canSign, false);
    assert.equal(ch.credentials.privateKeyPem, null);
    assert.throws(() => ch.publisher, /certificate only.*ch\.publisher is absent/s);
    assert.equal(ch.env().PARTNER_PRIVATE_KEY, undefined);
  });

  test("a library-made key is registered as such, and a service signing with another key is told", async () => {
    const ch = await sim.newChannel();
    assert.equal((await ch.refresh()).keyOrigin, "library");
    const wrong = await serviceSession({ ...ch.credentials, privateKeyPem: ownKey() }, "VU-WRONG");
    assert.match(wrong.reason ?? "", /made by the test library: give your service ch\.credentials\(\)/, JSON.stringify(wrong));
    const own = await sim.newChannel({ privateKey: ownKey() });
    assert.equal((await own.refresh()).keyOrigin, undefined);
  });
});

// Alone: these set REWARDSIM_LIKE and TMPDIR, which every newChannel and start reads.
describe("alone", () => {
  test("a failed start leaves no rewardsim-XXXXXX folder", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "failed-start-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await assert.rejects(startRewardsim({ bin: join(tmp, "no-such-rewardsim") }), /cannot start/);
      await assert.rejects(startRewardsim({ flags: ["--no-such-flag"] }), /exited/);
      assert.deepEqual(readdirSync(tmp), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved;
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("REWARDSIM_LIKE: new channels copy that channel, its run-time faults included", async () => {
    const base = await sim.newChannel({ prefix: "BASE" });
    await base.fault({ endpoint: "GenerateSessionInfoV2", action: { kind: "internal-error" } });
    process.env.REWARDSIM_LIKE = base.name;
    try {
      const ch = await sim.newChannel();
      assert.equal(ch.info.like ?? ch.info.copied?.from, base.name);
      await assert.rejects(ch.publisher.sessionId("VU-LIKE"), (e) => e.errorString === "Internal Error!");
    } finally {
      delete process.env.REWARDSIM_LIKE;
    }
  });
});

describe("verify that cannot pass by mistake", { concurrency: true }, () => {
  test("an unknown channel fails with the reason", async () => {
    const ch = await sim.newChannel();
    const ghost = Object.create(ch, { name: { value: "NO-SUCH-CHANNEL" } });
    await assert.rejects(Channel.prototype.verify.call(ghost, { endpoint: "fetchCouponCode", never: true }),
      (e) => e.status === 404 && /NO-SUCH-CHANNEL/.test(e.message));
  });

  test("a misspelt pointer fails naming the field it meant", async () => {
    const ch = await sim.newChannel();
    await assert.rejects(ch.verify({ endpoint: "fetchCouponCode", where: { "/extTransactionID": "T-1" }, never: true }),
      (e) => e.status === 400 && /did you mean \/extTransactionId/.test(e.message));
  });

  test("times and never exclude each other", async () => {
    const ch = await sim.newChannel();
    await assert.rejects(ch.verify({ endpoint: "fetchCouponCode", times: 1, never: true }), TypeError);
  });

  test("mark and findAll: this test's calls only, decoded", async () => {
    const ch = await sim.newChannel();
    await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-M", extTransactionId: "T-BEFORE", coinsUsed: 100 });
    const mark = await ch.mark();
    await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-M", extTransactionId: "T-AFTER", coinsUsed: 100 });
    const after = await ch.findAll("fetchCouponCode", { since: mark });
    assert.deepEqual(after.map((r) => r.extTransactionId), ["T-AFTER"]);
    assert.equal((await ch.findAll("fetchCouponCode")).length, 2);
    await ch.verify({ endpoint: "fetchCouponCode", since: mark, times: 1 });
    await ch.verify({ endpoint: "fetchCouponCode", where: { "/coinsUsed": { text: "100" } }, since: mark, times: 1 });
    await ch.verify({ endpoint: "fetchCouponCode", where: { "/coinsUsed": 100 }, never: true });
  });
});

// Issue 52: a behaviour switch set without YAML, for one channel or every channel.
describe("behaviour switches", () => {
  test("setSwitch changes this channel's answers only; resetSwitch puts the scenario's back", async () => {
    const ch = await sim.newChannel();
    const other = await sim.newChannel();
    const claim = (c) => c.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-SW", extTransactionId: "T-SW", coinsUsed: 100 });
    await claim(ch);
    const sw = await ch.setSwitch("coupons.duplicate", "reject");
    assert.equal(sw.override, "reject");
    assert.equal(sw.scenario, "original");
    await assert.rejects(claim(ch), (e) => e.errorCode === "DUPLICATE_TRANSACTION");
    await claim(other);
    await claim(other);
    const listed = await sim.switches({ channel: ch.name });
    assert.equal(listed.switches.find((s) => s.name === "switches.coupons.duplicate").value, "reject");
    await assert.rejects(ch.setSwitch("coupons.duplicate", "replay"), (e) => e.status === 400 && /it takes original, reject/.test(e.message));
    const reset = await ch.resetSwitch("coupons.duplicate");
    assert.deepEqual(reset.reset, ["switches.coupons.duplicate"]);
    await claim(ch);
    const all = await sim.setSwitch("cards.listMaxLimit", 80);
    assert.equal(all.everyChannel, "80");
    await sim.resetSwitch();
  });
});

// Issue 53, item 2 (CAP-1): a channel held to a capacity limit from the test.
describe("capacity limits", () => {
  test("limit refuses this channel's calls over it in the endpoint's shape; another channel is not held; removeLimit frees it", async () => {
    const ch = await sim.newChannel();
    const other = await sim.newChannel();
    const claim = (c, tx) => c.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: `VU-${tx}`, extTransactionId: tx, coinsUsed: 100 });
    const st = await ch.limit({ rate: 0.001, burst: 1 });
    assert.equal(st.source, "run-time");
    assert.equal(st.burst, 1);
    await claim(ch, "T-L1");
    await assert.rejects(claim(ch, "T-L2"), (e) => e.status === 503 && e.errorCode === "INTERNAL_ERROR");
    await claim(other, "T-L3");
    const held = await ch.limits();
    assert.deepEqual([held.stats.admitted, held.stats.refused], [1, 1]);
    assert.equal(await other.limits(), null);
    await assert.rejects(ch.limit({}), (e) => e.status === 400);
    await assert.rejects(ch.limit({ inFlight: 1, wait: "6m" }), (e) => e.status === 400 && /wait/.test(e.message));
    await ch.removeLimit();
    await claim(ch, "T-L4");
    assert.equal(await ch.limits(), null);
  });

  test("a call over the in-flight bound waits up to wait, then goes in", async () => {
    const ch = await sim.newChannel();
    await ch.limit({ inFlight: 1, wait: 5000 });
    await ch.fault({ endpoint: "fetchCouponCode", times: 2, action: { kind: "delay", delay: "200ms" } });
    const claims = ["T-W1", "T-W2"].map((tx) => ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: `VU-${tx}`, extTransactionId: tx, coinsUsed: 100 }));
    await Promise.all(claims);
    const held = await ch.limits();
    assert.deepEqual([held.limit.wait, held.stats.admitted, held.stats.waited, held.stats.refused], ["5s", 2, 1, 0]);
    await ch.removeLimit();
  });
});

// Issue 51, point 5 (SIM-6): the conformance report from the test, so a
// suite fails on its findings without the CLI.
describe("the report from the test", { concurrency: true }, () => {
  // A claim whose connection the simulator drops (a timed-out claim, CPN-4),
  // then the retry: with retryId, a new extTransactionId (the mistake).
  async function droppedClaimThenRetry(ch, retryId) {
    await ch.fault({ endpoint: "fetchCouponCode", times: 1, action: { kind: "drop-connection" } });
    await assert.rejects(ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-R", extTransactionId: "T-R1", coinsUsed: 100 }));
    await ch.publisher.fetchCoupon({ offerId: "OFFER-DEMO", virtualId: "VU-R", extTransactionId: retryId, coinsUsed: 100 });
  }

  test("CPN-4: a retry with a new extTransactionId is found; a clean channel beside it has no finding", async () => {
    const planted = await sim.newChannel();
    const clean = await sim.newChannel();
    await droppedClaimThenRetry(planted, "T-R2");
    await droppedClaimThenRetry(clean, "T-R1");

    const r = await planted.report();
    assert.equal(r.channel, planted.name);
    assert.deepEqual(r.findings.map((f) => [f.id, f.clause, f.severity, f.count]), [["retry-with-new-ext-transaction-id", "CPN-4", "error", 1]]);
    await assert.rejects(planted.report({ failOn: "error" }), (e) => e instanceof AssertionError &&
      e.message.includes(`conformance report of channel ${planted.name}: 1 finding(s) of severity error or worse`) &&
      /error CPN-4 retry-with-new-ext-transaction-id x1/.test(e.message) && /advice: /.test(e.message) && e.actual.length === 1);
    await assert.rejects(sim.report({ channel: planted.name, failOn: "error" }), /CPN-4/, "by name as by Channel");

    const ok = await clean.report({ failOn: "info" });
    assert.deepEqual(ok.findings, []);
    assert.ok(ok.exchanges >= 2, `the clean channel's own exchanges are read: ${ok.exchanges}`);
  });

  test("failOn fails at that severity or worse: a TOK-5 warning passes failOn error, fails failOn warning", async () => {
    const ch = await sim.newChannel();
    for (let i = 0; i < 5; i++) await ch.publisher.referenceToken(); // more than 4 an hour
    const r = await ch.report({ failOn: "error" });
    assert.deepEqual(r.findings.map((f) => [f.clause, f.severity]), [["TOK-5", "warning"]]);
    await assert.rejects(ch.report({ failOn: "warning" }), (e) => e instanceof AssertionError && /warning TOK-5 reference-token-per-request/.test(e.message));
    await ch.report({ failOn: "info", refTokenPerHour: 5 }); // the threshold moved: no finding
  });

  test("a failOn that is no severity is refused before any call", async () => {
    const ch = await sim.newChannel();
    await assert.rejects(ch.report({ failOn: "errors" }), (e) => e instanceof TypeError && /"error", "warning", "info" or "none"/.test(e.message));
    await assert.rejects(ch.report({ refTokenPerHour: 0 }), (e) => e.status === 400 && /refTokenPerHour/.test(e.message));
  });
});

// Issue 53 item 1: a latency profile from the test, on the channel alone:
// its getCatalogue answers after the fixed 300ms, another channel's at once.
describe("latency from the test", () => {
  test("ch.latency holds the channel's calls; removeLatency lifts it", async () => {
    const slow = await sim.newChannel();
    const quick = await sim.newChannel();
    const set = await slow.latency({ endpoint: "getCatalogue", fixed: "300ms" });
    assert.equal(set.channel, slow.name);
    assert.ok((await sim.latencies()).profiles.some((p) => p.channel === slow.name && p.fixed === "300ms"));
    const timed = async (ch) => { const t0 = Date.now(); await ch.publisher.catalogue(); return Date.now() - t0; };
    assert.ok(await timed(slow) >= 300, "the profiled channel answered within 300ms");
    assert.ok(await timed(quick) < 250, "another channel was held too");
    await assert.rejects(slow.latency({ endpoint: "getCatalog", fixed: "1ms" }), /did you mean getCatalogue\?/);
    assert.equal((await sim.removeLatency({ channel: slow.name })).removed.length, 1);
    assert.ok(await timed(slow) < 250, "the profile was not removed");
  });
});
