// What both test files share: the service started for a channel, configured
// from ch.env("PARTNER_") alone, and a JSON caller.
import { startService } from "../service.mjs";

/** Starts the service as channel ch and makes it the channel's webhook receiver. */
export async function serviceFor(ch, extra = {}) {
  const svc = await startService({ ...ch.env("PARTNER_"), PARTNER_TIMEOUT_MS: "1500", ...extra });
  await ch.setWebhookUrl(`${svc.url}/hooks/coupon-status`);
  return svc;
}

export async function call(svc, path, body) {
  const res = await fetch(svc.url + path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Waits until check() holds (polling), or fails naming what. */
export async function eventually(check, what, ms = 10000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (await check()) return;
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}
