// A small publisher service, the kind rewardsim exists to test: a payment
// issues a scratch card, the user reveals it, and burns coins for a coupon.
// Node's http, fetch and crypto only. Configured from the environment alone
// (PARTNER_* as rewardsim's ch.env("PARTNER_") gives them):
//
//   PARTNER_CHANNEL_NAME, PARTNER_CHANNEL_ID, PARTNER_APP_KEY, PARTNER_SEC_KEY,
//   PARTNER_PRIVATE_KEY (signs envelopes), PARTNER_SERVICE_CERTIFICATE (verifies
//   signed answers), PARTNER_REWARDS_URL, PARTNER_BANK_URL, PARTNER_HOTDEALS_URL;
//   PARTNER_TIMEOUT_MS (coupon call timeout, default 2000), PORT (node service.mjs).
//
// Routes: POST /payments {userId, paymentId, amount} -> the card issued;
// POST /cards/reveal {userId, rewardId}; POST /coupons/claim {userId, offerId,
// coins, claimId}; GET /users/{userId}; POST /hooks/coupon-status (the
// channel's webhookUrl).
import { createPublicKey, sign, verify } from "node:crypto";
import { createServer } from "node:http";

export class PartnerError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The partner's three hosts, signed and authenticated as the channel. */
export class PartnerClient {
  constructor(env) {
    for (const k of ["CHANNEL_NAME", "CHANNEL_ID", "APP_KEY", "SEC_KEY", "PRIVATE_KEY", "SERVICE_CERTIFICATE", "REWARDS_URL", "BANK_URL", "HOTDEALS_URL"]) {
      if (!env[`PARTNER_${k}`]) throw new Error(`PARTNER_${k} is not set`);
    }
    this.env = env;
    this.channel = env.PARTNER_CHANNEL_NAME;
    this.serviceKey = createPublicKey(env.PARTNER_SERVICE_CERTIFICATE);
    this.timeoutMs = Number(env.PARTNER_TIMEOUT_MS ?? 2000);
    this.userTokens = new Map();
  }

  async #post(url, body, headers = {}, timeoutMs = 10000) {
    const res = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = { text }; }
    return { status: res.status, body: json };
  }

  // An envelope call: sign BDATA with the channel's key, verify the answer's SIGN.
  async signed(url, payload, bearer) {
    const BDATA = Buffer.from(JSON.stringify(payload)).toString("base64");
    const SIGN = sign("sha256", Buffer.from(BDATA), this.env.PARTNER_PRIVATE_KEY).toString("base64");
    const r = await this.#post(url, { CHANNELID: this.env.PARTNER_CHANNEL_ID, SIGN, BDATA }, bearer ? { Authorization: `Bearer ${bearer}` } : {});
    const b = r.body;
    if (r.status === 401) throw new PartnerError(401, "UNAUTHORIZED", "token refused");
    if (typeof b?.ERRORSTRING === "string") throw new PartnerError(409, "REFUSED", b.ERRORSTRING); // the bare failure shape
    if (typeof b?.BDATA !== "string" || !verify("sha256", Buffer.from(b.BDATA), this.serviceKey, Buffer.from(b.SIGN ?? "", "base64"))) {
      throw new PartnerError(502, "BAD_ANSWER", `${url}: ${JSON.stringify(b)}`);
    }
    const data = JSON.parse(Buffer.from(b.BDATA, "base64").toString("utf8"));
    if (data.status === false) throw new PartnerError(409, "REFUSED", data.message);
    return data;
  }

  async issueCard({ userId, paymentId, amount }) {
    const { referenceKey } = await this.signed(`${this.env.PARTNER_REWARDS_URL}/api/getSecuredReferenceToken`, { bName: this.channel });
    const r = await this.#post(`${this.env.PARTNER_REWARDS_URL}/api/GetReward`, {
      channelName: this.channel, virtualId: userId, triggerEventType: "UPI", extTransactionId: paymentId, amount, dateandtime: istNow(),
    }, { Authorization: `Bearer ${referenceKey}` });
    if (r.status !== 200 || r.body.status !== true) throw new PartnerError(502, "NO_CARD", JSON.stringify(r.body));
    return r.body.rewards;
  }

  async #userToken(userId, fresh) {
    if (fresh || !this.userTokens.has(userId)) {
      const { token } = await this.signed(`${this.env.PARTNER_REWARDS_URL}/api/GetAuthToken`, { channelName: this.channel, virtualId: userId });
      this.userTokens.set(userId, token);
    }
    return this.userTokens.get(userId);
  }

  // Reveal with the cached user token; an expired one is renewed once.
  async reveal({ userId, rewardId }) {
    const call = async (fresh) => this.signed(`${this.env.PARTNER_REWARDS_URL}/api/FetchRewardInfo`,
      { channelName: this.channel, rewardId: String(rewardId), virtualId: userId }, await this.#userToken(userId, fresh));
    try {
      return await call(false);
    } catch (err) {
      if (err.code !== "UNAUTHORIZED") throw err;
      return call(true);
    }
  }

  // fetchCouponCode, retried with the same extTransactionId when the answer
  // never came (timeout, dropped connection); never on a coupon error.
  async fetchCoupon({ userId, offerId, coins, claimId }, tries = 3) {
    const body = { offerId, virtualId: userId, channelName: this.channel, extTransactionId: claimId, coinsUsed: String(coins) };
    const headers = { Authorization: `ServiceAppKey ${this.env.PARTNER_APP_KEY}:${this.env.PARTNER_SEC_KEY}`, "X-CHANNELID": this.channel };
    for (let attempt = 1; ; attempt++) {
      let r;
      try {
        r = await this.#post(`${this.env.PARTNER_HOTDEALS_URL}/api/fetchCouponCode`, body, headers, this.timeoutMs);
      } catch (err) {
        if (attempt < tries) continue; // no answer: the claim may have happened; the same id is safe
        throw new PartnerError(504, "NO_ANSWER", `fetchCouponCode: ${err.message}`);
      }
      if (r.body?.status === 200) return r.body.data;
      throw new PartnerError(409, r.body?.errorCode ?? "COUPON_ERROR", r.body?.message ?? JSON.stringify(r.body));
    }
  }
}

function istNow() {
  const d = new Date(Date.now() + 330 * 60 * 1000);
  const p = (n) => String(n).padStart(2, "0");
  return p(d.getUTCDate()) + p(d.getUTCMonth() + 1) + d.getUTCFullYear() + p(d.getUTCHours()) + p(d.getUTCMinutes()) + p(d.getUTCSeconds());
}

/** The service's own books: coins per user, coupons, pushes seen (by referenceId). */
class Books {
  users = new Map();
  pushes = new Set();

  user(userId) {
    if (!this.users.has(userId)) this.users.set(userId, { coins: 1000, coupons: [] });
    return this.users.get(userId);
  }

  // A push for an offer invalidates the users' coupons of it, once per referenceId.
  invalidate(push) {
    if (push.eventType !== "COUPON_INVALIDATED" || this.pushes.has(push.referenceId)) return false;
    this.pushes.add(push.referenceId);
    for (const u of this.users.values()) for (const c of u.coupons) if (c.offerId === push.offerId) c.state = "invalidated";
    return true;
  }
}

async function claim(partner, books, req) {
  const user = books.user(req.userId);
  if (user.coins < req.coins) throw new PartnerError(402, "NOT_ENOUGH_COINS", "not enough coins");
  user.coins -= req.coins; // burnt first, refunded if no coupon comes
  try {
    const coupon = await partner.fetchCoupon(req);
    user.coupons.push({ offerId: req.offerId, code: coupon.coupon_code, claimId: req.claimId, state: "delivered" });
    return coupon;
  } catch (err) {
    user.coins += req.coins;
    throw err;
  }
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    let b = "";
    req.on("data", (d) => { b += d; }).on("end", () => {
      try { resolve(b ? JSON.parse(b) : {}); } catch (err) { reject(new PartnerError(400, "BAD_JSON", err.message)); }
    }).on("error", reject);
  });
}

function routes(partner, books) {
  return {
    "POST /payments": async (b) => ({ cards: await partner.issueCard(b) }),
    "POST /cards/reveal": async (b) => partner.reveal(b),
    "POST /coupons/claim": async (b) => claim(partner, books, b),
    "POST /hooks/coupon-status": async (b) => { books.invalidate(b); return { status: "OK" }; },
  };
}

/** Starts the service on 127.0.0.1 (port 0: a free one): { url, books, close() }. */
export async function startService(env = process.env, port = 0) {
  const partner = new PartnerClient(env);
  const books = new Books();
  const table = routes(partner, books);
  const server = createServer(async (req, res) => {
    const send = (status, body) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    try {
      const user = /^\/users\/([^/]+)$/.exec(req.url);
      if (req.method === "GET" && user) return send(200, books.user(decodeURIComponent(user[1])));
      const handler = table[`${req.method} ${req.url}`];
      if (!handler) return send(404, { code: "NOT_FOUND" });
      send(200, await handler(await readJson(req)));
    } catch (err) {
      send(err.status ?? 500, { code: err.code ?? "ERROR", message: err.message });
    }
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, books, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const svc = await startService(process.env, Number(process.env.PORT ?? 3000));
  console.log(`publisher service on ${svc.url}`);
}
