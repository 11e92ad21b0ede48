// Type declarations of the rewardsim test library (index.js).
import type { KeyObject } from "node:crypto";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: any };

/** A failure answer of the service or of the control API. */
export class RewardsimError extends Error {
  readonly endpoint: string;
  /** HTTP status. */
  readonly status: number;
  /** The answer's body: the contract's error ({STATUS, ERRORSTRING}, {status, errorCode, message}, or a BDATA with status false). */
  readonly body: any;
  /** X-Rewardsim-Reason: the simulator's precise cause. */
  readonly reason: string | null;
  /** X-Rewardsim-Seq of the answer. */
  readonly seq: number | null;
  readonly errorString: string | null;
  readonly errorCode: string | null;
}

export interface StartOptions {
  /** The rewardsim binary; default REWARDSIM_BIN, else `rewardsim` on PATH. */
  bin?: string;
  /** Scenario file or folder (--scenario). */
  scenario?: string;
  /** More `serve` flags. */
  args?: string[];
  env?: Record<string, string>;
  /** State folder; default a temporary one, removed on close. */
  dataDir?: string;
  /** How long to wait for the listeners, ms (default 15000). */
  timeout?: number;
}

export interface AttachOptions {
  publicUrl?: string;
  controlUrl?: string;
  rewardsUrl?: string;
  bankUrl?: string;
  hotdealsUrl?: string;
  controlToken?: string;
}

export function startRewardsim(options?: StartOptions): Promise<Rewardsim>;
export function attachRewardsim(publicUrl?: string, controlUrl?: string): Promise<Rewardsim>;
export function attachRewardsim(options: AttachOptions): Promise<Rewardsim>;

export interface NewChannelOptions {
  /** Default: a fresh random name, prefix + "-" + 12 hex digits. */
  name?: string;
  /** The channel to copy campaigns, offers and switches from; default DEMOBANK. */
  like?: string;
  /** Prefix of the generated name; default "T". */
  prefix?: string;
}

export class Rewardsim {
  readonly publicUrl: string;
  readonly controlUrl: string;
  readonly rewardsUrl: string;
  readonly bankUrl: string;
  readonly hotdealsUrl: string;
  readonly controlToken?: string;
  constructor(options: AttachOptions & { publicUrl: string; controlUrl: string; onClose?: () => Promise<void> });
  control(method: string, path: string, body?: unknown): Promise<any>;
  health(): Promise<JsonObject>;
  serviceKey(): Promise<KeyObject>;
  newChannel(options?: NewChannelOptions): Promise<Channel>;
  close(): Promise<void>;
}

/** A predicate value: a JSON value compared exactly, or a regular expression. */
export type WhereValue = string | number | boolean | null | { regex: string };

export interface VerifyOptions {
  /** Journal name of the operation, such as "fetchCouponCode" or "GetReward". */
  endpoint: string;
  /** JSON pointer into the request as the publisher meant it (decoded BDATA, JSON body, GET query) -> value. */
  where?: Record<string, WhereValue>;
  /** Count from this X-Rewardsim-Seq on (inclusive). */
  since?: number;
  times?: number;
  atLeast?: number;
  atMost?: number;
  never?: boolean;
}

export interface VerifyResult {
  ok: boolean;
  count: number;
  matches: number[];
  nearMisses: any[];
}

export class Channel {
  readonly sim: Rewardsim;
  readonly name: string;
  /** The control API's answer to the channel's registration. */
  readonly info: JsonObject;
  readonly publisher: Publisher;
  /** Rejects with node:assert's AssertionError naming the near misses when the count does not hold. */
  verify(options: VerifyOptions): Promise<VerifyResult>;
  /** "90m", "1h" (Go durations) or milliseconds: this channel's clock only. */
  advanceClock(by: string | number): Promise<JsonObject>;
  clock(): Promise<JsonObject>;
  /** A fault rule (docs/scenarios.md#faults); channel is filled in. */
  fault(rule: JsonObject): Promise<JsonObject>;
  /** Schedules a coupon-status push: { offerId, reason, eventType?, at?, repeat?, ... }; resolves before it is attempted (await it with webhookInbox().next()). */
  webhook(push: JsonObject): Promise<JsonObject>;
  reset(): Promise<void>;
  journal(query?: Record<string, string>): Promise<JsonObject>;
  webhookInbox(): Promise<WebhookInbox>;
  closeInbox(): Promise<void>;
}

export class WebhookInbox {
  /** The channel's webhookUrl. */
  readonly url: string;
  /** Every push received, in order. */
  readonly received: JsonObject[];
  /** The next push not yet taken (of that eventType, if given). */
  next(eventType?: string, options?: { timeout?: number }): Promise<JsonObject>;
  close(): Promise<void>;
}

export interface GetRewardRequest {
  virtualId: string;
  extTransactionId: string;
  amount?: number;
  triggerEventType?: string;
  dateandtime?: string;
  referenceToken?: string;
  [extra: string]: unknown;
}

export interface BankCardRequest {
  virtualId: string;
  extTransactionId: string;
  amount?: string | number;
  mcc?: string;
  campaignId?: string;
  transDateAndTime?: string;
  deviceToken?: string;
}

export interface CouponRequest {
  offerId: string;
  virtualId: string;
  extTransactionId: string;
  coinsUsed: number | string;
}

export class Publisher {
  readonly channel: Channel;
  readonly appKey: string;
  readonly secKey: string;
  /** X-Rewardsim-Seq of the last answer. */
  readonly lastSeq: number | null;
  seal(payload: unknown): { CHANNELID: string; SIGN: string; BDATA: string };
  referenceToken(): Promise<string>;
  getReward(request: GetRewardRequest): Promise<JsonObject>;
  userToken(virtualId: string): Promise<string>;
  cards(userToken: string, options?: { page?: number; limit?: number }): Promise<JsonObject[]>;
  reveal(request: { userToken: string; virtualId: string; rewardId: number | string }): Promise<JsonObject>;
  sessionId(virtualId: string): Promise<string>;
  bankCard(request: BankCardRequest): Promise<JsonObject>;
  fetchCoupon(request: CouponRequest): Promise<JsonObject>;
  userCoupons(virtualId: string, offerId?: string): Promise<JsonObject[]>;
  catalogue(virtualId?: string): Promise<JsonObject[]>;
}
