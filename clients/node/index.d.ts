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
  /** The rewardsim binary; default REWARDSIM_BIN, else the platform package (@rewardsim/<platform>-<cpu>), else `rewardsim` on PATH. */
  bin?: string;
  /** Scenario file or folder (--scenario). */
  scenario?: string;
  /** More `serve` flags, e.g. ["--journal-max-entries", "5000"]. */
  flags?: string[];
  /** The former name of flags. */
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

/** Under rewardsim sweep (REWARDSIM_SWEEP_ROW, REWARDSIM_URL and REWARDSIM_CONTROL_URL set), attaches to the sweep's simulator instead, and options are not used. */
export function startRewardsim(options?: StartOptions): Promise<Rewardsim>;
/** A fresh temporary folder, removed when the node:test test of t ends (t.after); without t, remove it yourself. */
export function tempDir(t?: { after(fn: () => unknown): void }): Promise<string>;
/** Both URLs are needed (arguments, else REWARDSIM_URL and REWARDSIM_CONTROL_URL): the control URL is never guessed. */
export function attachRewardsim(publicUrl?: string, controlUrl?: string): Promise<Rewardsim>;
export function attachRewardsim(options: AttachOptions): Promise<Rewardsim>;

interface NewChannelCommon {
  /** Default: a fresh random name, prefix + "-" + 12 hex digits. */
  name?: string;
  /** The channel to copy campaigns, offers and switches from; default REWARDSIM_LIKE (its run-time faults copied too), else DEMOBANK. */
  like?: string;
  /** Prefix of the generated name; default "T". */
  prefix?: string;
  /** The channel's webhookUrl (coupon-status pushes). */
  webhookUrl?: string;
  /** The test the channel is for, as rewardsim sweep names it (REWARDSIM_SWEEP_CHANNELS); default the test file, relative to the working folder. */
  test?: string;
  /** Default: fresh random ones. */
  appKey?: string;
  secKey?: string;
}

/** The team's own private key (PEM, PKCS#8 or PKCS#1, or a KeyObject): its public key is registered unless a certificate is given too. */
export interface OwnKeyChannelOptions extends NewChannelCommon { privateKey: string | Buffer | KeyObject; certificate?: string }
/** A certificate (or public key PEM) only: the library cannot sign as the channel, so ch.publisher is absent. */
export interface CertificateOnlyChannelOptions extends NewChannelCommon { certificate: string; privateKey?: undefined }
/** Neither: the library makes an RSA key (registered with keyOrigin "library"); ch.credentials hands it to your service. */
export interface LibraryKeyChannelOptions extends NewChannelCommon { privateKey?: undefined; certificate?: undefined }
export type NewChannelOptions = OwnKeyChannelOptions | CertificateOnlyChannelOptions | LibraryKeyChannelOptions;

/** A finding's severity; failOn also takes "none" (fails on nothing). */
export type Severity = "error" | "warning" | "info";

/** A rule the report checked (schemas/report.json#/$defs/rule). */
export interface ReportRule {
  id: string;
  /** The contract clause, such as "GR-4" or "CPN-4". */
  clause: string;
  severity: Severity;
  title: string;
  advice: string;
  /** Set when the rule checks the simulator's own reading of a point the contract leaves open. */
  reading?: string;
}

/** One rule that fired: how often, and one exchange that shows it. */
export interface ReportFinding extends ReportRule {
  count: number;
  example: { seq: number; at: string; method: string; path: string; endpoint?: string; status: number; reason?: string; detail: string };
}

/** GET /__sim/report: the conformance report (schemas/report.json). */
export interface Report {
  channel?: string;
  exchanges: number;
  findings: ReportFinding[];
  /** Findings per severity. */
  totals: Partial<Record<Severity, number>>;
  checked: ReportRule[];
  /** Exchanges the journal dropped under overload: the report may miss findings. */
  journalDropped?: number;
  /** What no rule can see from the journal: a report without findings says nothing about these. */
  notCheckable?: { id: string; title: string; how: string }[];
}

export interface ReportOptions {
  /** Rejects with node:assert's AssertionError listing the findings of this severity or worse; default "none". */
  failOn?: Severity | "none";
  /** The TOK-5 threshold: reference tokens per 60 minutes (default 4). */
  refTokenPerHour?: number;
}

export class Rewardsim {
  readonly publicUrl: string;
  readonly controlUrl: string;
  readonly rewardsUrl: string;
  readonly bankUrl: string;
  readonly hotdealsUrl: string;
  readonly controlToken?: string;
  /** For a simulator this process started: its pid, data folder, binary and where the binary came from ("option", "REWARDSIM_BIN", "@rewardsim/linux-x64", "PATH"); null when attached. */
  readonly process: { pid: number; dataDir: string; binary: string; from: string } | null;
  constructor(options: AttachOptions & { publicUrl: string; controlUrl: string; onClose?: () => Promise<void> });
  control(method: string, path: string, body?: unknown): Promise<any>;
  health(): Promise<JsonObject>;
  serviceKey(): Promise<KeyObject>;
  /** The service certificate's PEM: verifies the simulator's signed answers. */
  serviceCertificatePem(): Promise<string>;
  newChannel(options?: NewChannelOptions): Promise<Channel>;
  /** Every behaviour switch of a channel (default: every channel's): value in force, default, scenario value, overrides (GET /__sim/switches). */
  switches(options?: { channel?: string }): Promise<{ channel?: string; scenario: string; switches: SwitchState[] }>;
  /** Overrides a behaviour switch for a channel (default: every channel), kept across a restart; a value it does not take rejects, naming those it takes. */
  setSwitch<N extends SwitchName>(name: N, value: SwitchValues[N], options?: { channel?: string }): Promise<SwitchState>;
  /** Sets a latency profile (POST /__sim/latency, docs/latency.md); kept across a restart. */
  latency(profile: LatencyProfile): Promise<LatencyProfile>;
  /** The latency profiles in force: the run-time ones and each scenario's own. */
  latencies(): Promise<{ profiles: LatencyProfile[]; scenarios: Record<string, LatencyProfile[]> }>;
  /** Removes run-time latency profiles: of an endpoint (default every one) for a channel (default every channel's). */
  removeLatency(options?: { endpoint?: string; channel?: string }): Promise<{ removed: LatencyProfile[] }>;
  /** Puts the scenario's value back: of one switch, or every one (default: every channel's overrides). */
  resetSwitch(name?: SwitchName, options?: { channel?: string }): Promise<{ reset: string[] } & JsonObject>;
  /** The conformance report of channel (a name, CHANNELID or Channel; absent: every channel), as `rewardsim report` gives it. */
  report(options?: ReportOptions & { channel?: string | Channel }): Promise<Report>;
  close(): Promise<void>;
}

/** A behaviour switch as the simulator lists it (GET /__sim/switches). */
export interface SwitchState {
  name: string;
  kind: "bool" | "int" | "string" | "duration";
  values?: string[];
  allowed: string;
  default: string;
  scenario: string;
  everyChannel?: string;
  override?: string;
  value: string;
  doc: string;
}

/** The behaviour switches (docs/scenarios.md#behaviour-switches) and the values each takes. */
// switches: drawn from the simulator's switch table (go test ./docs -run TestDocs_switchSurfaces -update)
export interface SwitchValues {
  /** HTTP status of a bare {STATUS, ERRORSTRING} failure caused by the request (ENV-6): 200, 400 (default 200). */
  "failureHttpStatus": "200" | 200 | "400" | 400;
  /** unknown CHANNELID: Signature Mismatch!, or Invalid Request! unknown CHANNELID "X" (ENV-6): signature-mismatch, describe (default signature-mismatch). */
  "unknownChannel": "signature-mismatch" | "describe";
  /** format of expireDate (TOK-4): datetime-ms, iso8601, epoch-ms (default datetime-ms). */
  "tokens.expireDateFormat": "datetime-ms" | "iso8601" | "epoch-ms";
  /** reference token lifetime (TOK-4): a positive duration such as 30s, 30m or 1h (default 1h). */
  "tokens.referenceTTL": string;
  /** user token lifetime (TOK-4): a positive duration such as 30s, 30m or 1h (default 30m). */
  "tokens.userTTL": string;
  /** session lifetime (0: never expires): 0 or a duration such as 30s, 30m or 1h (default 0). */
  "sessions.ttl": string;
  /** GetReward without amount refused (GR-5): false, true (default false). */
  "cards.amountRequired": "false" | false | "true" | true;
  /** a dateandtime not DDMMYYYYHHMMSS (GR-6): reject, now, accept (default reject). */
  "cards.dateandtime": "reject" | "now" | "accept";
  /** additionalParams as a nested object (GR-7): reject, accept (default reject). */
  "cards.nestedAdditionalParams": "reject" | "accept";
  /** GetReward channelName other than the token's channel: refuse, use-token (default refuse). */
  "cards.channelMismatch": "refuse" | "use-token";
  /** HTTP status of a malformed GetReward or listing request: 400, 200 (default 400). */
  "cards.invalidRequestStatus": "400" | 400 | "200" | 200;
  /** second reveal: a bare failure, or a signed {status false, isAlreadyRewarded true} (REV-2): failure, status-false (default failure). */
  "cards.secondReveal": "failure" | "status-false";
  /** FetchRewardInfo needs SIGN (REV-5): true, false (default true). */
  "cards.fetchSignRequired": "true" | true | "false" | false;
  /** FetchRewardInfo's answer is signed (REV-5): true, false (default true). */
  "cards.fetchAnswerSigned": "true" | true | "false" | false;
  /** listing limit when none is sent (LIST-1): an integer from 1 to 1000 (default 10). */
  "cards.listDefaultLimit": number;
  /** largest listing limit (LIST-1): an integer from 1 to 1000 (default 50). */
  "cards.listMaxLimit": number;
  /** bad page/limit: HTTP 400, or corrected (LIST-1): reject, clamp (default reject). */
  "cards.listBadValues": "reject" | "clamp";
  /** GetScratchCardForBank amount unit; tiers are thresholds (BANK-2): rupees, paisa (default rupees). */
  "cards.bankAmountUnit": "rupees" | "paisa";
  /** resent extTransactionId: the original card or a new one (BANK-3): original, new (default original). */
  "cards.bankResend": "original" | "new";
  /** not-eligible answer signed or a bare body (BANK-4): signed, bare (default signed). */
  "cards.bankNotEligible": "signed" | "bare";
  /** HTTP 200 always, or the HTTP status mirrors the body status (CPN-3): body, mirror (default body). */
  "coupons.httpStatus": "body" | "mirror";
  /** a duplicate extTransactionId: the earlier result, or 409 DUPLICATE_TRANSACTION (CPN-5): original, reject (default original). */
  "coupons.duplicate": "original" | "reject";
  /** the same extTransactionId on another offer (CPN-5): reject, new, first (default reject). */
  "coupons.crossOffer": "reject" | "new" | "first";
  /** data.orderId in the success answer (CPN-7): false, true (default false). */
  "coupons.orderId": "false" | false | "true" | true;
  /** coinsUsed sent as a JSON number: refuse, accept (default refuse). */
  "coupons.coinsAsNumber": "refuse" | "accept";
  /** coinsUsed different from the offer's price: accept, refuse (default accept). */
  "coupons.coinsMismatch": "accept" | "refuse";
  /** retry policy of coupon-status pushes (WH-2): exponential, none, fixed (default exponential). */
  "webhook.retry": "exponential" | "none" | "fixed";
  /** wait before the first retry of a push (WH-2): a positive duration such as 30s, 30m or 1h (default 30s). */
  "webhook.interval": string;
  /** attempts of a push in all, the first included (WH-2): an integer from 1 to 20 (default 4). */
  "webhook.maxAttempts": number;
  /** how long the receiver has to answer a push (0: the simulator's --webhook-deadline) (WH-2): a duration such as 30s or 2m, at most 1m0s (default 0). */
  "webhook.deadline": string;
  /** SDK issuance with an empty sessionId (SDK-1): refuse, accept (default refuse). */
  "sdk.emptySessionId": "refuse" | "accept";
  /** a reveal that wins nothing goes through the reveal callbacks (SDK-3): deliver, skip (default deliver). */
  "sdk.missCallback": "deliver" | "skip";
  /** HTTP status of a call refused by its channel's limit, its body the endpoint's platform failure (docs/limits.md): 503, 429, 200 (default 503). */
  "limits.status": "503" | 503 | "429" | 429 | "200" | 200;
  /** a call refused by its channel's limit says Retry-After, in whole seconds (docs/limits.md): true, false (default true). */
  "limits.retryAfter": "true" | true | "false" | false;
}
// end of switches
export type SwitchName = keyof SwitchValues;

/** Operations the simulator journals, by the names verify, findAll and fault rules take. */
export type EnvelopeEndpoint = "getSecuredReferenceToken" | "GetAuthToken" | "GenerateSessionInfoV2" | "FetchRewardInfo" | "GetAllScratchCardsByUserId";
export type EligibleEndpoint = "GetReward" | "GetScratchCardForBank" | "getScratchCardDetails" | "sendRewardCardRequest";
export type CouponListEndpoint = "getCatalogue" | "getUserCoupons";
export type Endpoint = EnvelopeEndpoint | EligibleEndpoint | CouponListEndpoint | "fetchCouponCode" | "RegisterEvent" | "ExitEvent";

/** The fault kinds every endpoint that decides faults can show. */
export type GenericFaultKind = "internal-error" | "signature-mismatch" | "http-status" | "delay" | "drop-connection" | "malformed-body";
/** The coupon host's error codes (a coupon-error fault's errorCode). */
export type CouponErrorCode = "INVALID_REQUEST" | "UNAUTHORIZED" | "NON_ELIGIBLE" | "INVALID_OFFER" | "COUPON_EXHAUSTED" |
  "DUPLICATE_TRANSACTION" | "MAX_LIMIT_REACHED" | "INTERNAL_ERROR";
/** A Go duration: "250ms", "2s", "1m30s". */
export type Duration = string;

/** What every fault action may say besides its kind. */
interface FaultText {
  /** The injected answer's text where its shape has one (the coupon host's message, the signed family's ERRORSTRING, the bearer 401's message); absent, the text the real outcome carries. */
  message?: string;
}
export type GenericFaultAction = FaultText & (
  | { kind: "internal-error" | "signature-mismatch" | "drop-connection" | "malformed-body" }
  | { kind: "http-status"; status: number }
  | { kind: "delay"; delay: Duration });
export type NotEligibleAction = FaultText & { kind: "not-eligible" };
export type CouponErrorAction = FaultText & { kind: "coupon-error"; errorCode: CouponErrorCode; status?: number };
export type CommitAction = FaultText & ({ kind: "commit-then-drop" } | { kind: "commit-then-delay"; delay: Duration });
/** A signed answer given with SIGN over other bytes, by another key, or absent: does your service verify what it is told? */
export type AnswerSignAction = FaultText & { kind: "answer-sign-other-bytes" | "answer-sign-other-key" | "answer-sign-absent" };
/** The endpoints whose answer is a signed envelope (their SIGN can be broken by an AnswerSignAction). */
export type SignedAnswerEndpoint = "getSecuredReferenceToken" | "GetAuthToken" | "GenerateSessionInfoV2" | "FetchRewardInfo" | "GetScratchCardForBank";

interface FaultMatch {
  /** The rule's id (made by the simulator when absent); a rule armed with the id of an armed one replaces it. */
  id?: string;
  virtualId?: string;
  /** Fire on the nth matching call only (1-based). */
  nth?: number;
  /** Fire at most this many times; absent: every time. */
  times?: number;
  probability?: number;
  seed?: number;
}

/**
 * A fault rule for a channel: each endpoint takes only the kinds (and coupon codes) it can show,
 * as the simulator's table has them (clients/node/test/fault-kinds.ts, generated from it, checks).
 */
export type FaultRule = FaultMatch & (
  | { endpoint: Exclude<SignedAnswerEndpoint, "GetScratchCardForBank">; action: GenericFaultAction | AnswerSignAction }
  | { endpoint: "GetAllScratchCardsByUserId"; action: GenericFaultAction }
  | { endpoint: "GetScratchCardForBank"; action: GenericFaultAction | NotEligibleAction | AnswerSignAction }
  | { endpoint: Exclude<EligibleEndpoint, "GetScratchCardForBank">; action: GenericFaultAction | NotEligibleAction }
  | { endpoint: CouponListEndpoint; action: GenericFaultAction | NotEligibleAction | CouponErrorAction }
  | { endpoint: "fetchCouponCode"; action: GenericFaultAction | NotEligibleAction | CouponErrorAction | CommitAction }
  | { endpoint: "*"; action: GenericFaultAction | NotEligibleAction | CouponErrorAction | CommitAction | AnswerSignAction }
);

/** A predicate value: a JSON value compared exactly (typed: 100 is not "100"), a regular expression (RE2, Go's dialect), or { text }: the value's text whatever its JSON type. */
export type WhereValue = string | number | boolean | null | { regex: string } | { text: string };

interface VerifyBase {
  /** Journal name of the operation, such as "fetchCouponCode" or "GetReward". */
  endpoint: Endpoint;
  /** JSON pointer into the request as the publisher meant it (decoded BDATA, JSON body, GET query) -> value. A pointer that names no field of the endpoint's request is refused (400, "did you mean"). */
  where?: Record<string, WhereValue>;
  /** Count from this sequence on (inclusive): ch.mark() or publisher.lastSeq + 1. */
  since?: number;
}
/** Exactly one count: times, never, or a range; times and never exclude each other and the range. */
export type VerifyOptions = VerifyBase & (
  | { times: number; never?: never; atLeast?: never; atMost?: never }
  | { never: true; times?: never; atLeast?: never; atMost?: never }
  | { atLeast?: number; atMost?: number; times?: never; never?: never }
);

export interface VerifyResult {
  ok: boolean;
  count: number;
  matches: number[];
  nearMisses: any[];
}

/** What a service needs to call the simulator as a channel (the forms services read). */
export interface ChannelCredentials {
  readonly name: string;
  readonly channelId: string;
  readonly appKey: string;
  readonly secKey: string;
  /** PKCS#8 PEM of the channel's signing key; null when it was registered with a certificate only. */
  readonly privateKeyPem: string | null;
  /** The channel's X.509 certificate PEM as registered: self-signed (CN = the channel's name) for a key the library made or one given without a certificate. */
  readonly certificatePem: string;
  /** Verifies the simulator's signed answers. */
  readonly serviceCertificatePem: string;
  readonly rewardsUrl: string;
  readonly bankUrl: string;
  readonly hotdealsUrl: string;
}

/** ch.env(prefix): prefix + each of these (PRIVATE_KEY only when the library holds the key). */
export type ChannelEnvName = "CHANNEL_NAME" | "CHANNEL_ID" | "APP_KEY" | "SEC_KEY" | "PRIVATE_KEY" | "CERTIFICATE" |
  "SERVICE_CERTIFICATE" | "REWARDS_URL" | "BANK_URL" | "HOTDEALS_URL";

export class Channel {
  readonly sim: Rewardsim;
  readonly name: string;
  /** The control API's answer for the channel (name, channelId, webhookUrl, appKey, secKey, certificate, keyOrigin, ...). */
  readonly info: JsonObject;
  /** The library's signing client; throws, saying why, for a channel registered with a certificate only. */
  readonly publisher: Publisher;
  /** Whether publisher is there. */
  readonly canSign: boolean;
  readonly credentials: ChannelCredentials;
  env<P extends string = "PARTNER_">(prefix?: P): { [K in `${P}${ChannelEnvName}`]?: string };
  /** Writes key.pem, cert.pem, service.pem and channel.env (env(prefix) with *_FILE paths for the PEMs) into dir; key.pem and channel.env are 0600. Resolves with dir, absolute. */
  writeFiles(dir: string, options?: { prefix?: string }): Promise<string>;
  /** Changes the webhookUrl alone (PATCH /__sim/channels/{name}). */
  setWebhookUrl(url: string): Promise<JsonObject>;
  /** GET /__sim/channels/{name}. */
  refresh(): Promise<JsonObject>;
  /** A watermark for since: the sequence after every journal entry of this channel so far. */
  mark(): Promise<number>;
  /** The decoded requests (BDATA, JSON body or query) of this channel's calls to endpoint, oldest first. */
  findAll<T = JsonObject>(endpoint: Endpoint, options?: { since?: number }): Promise<T[]>;
  /** Rejects with node:assert's AssertionError naming the near misses when the count does not hold. */
  verify(options: VerifyOptions): Promise<VerifyResult>;
  /** "90m", "1h" (Go durations) or milliseconds: this channel's clock only. */
  advanceClock(by: string | number): Promise<JsonObject>;
  clock(): Promise<JsonObject>;
  /** A fault rule (docs/scenarios.md#faults); channel is filled in. */
  fault(rule: FaultRule): Promise<JsonObject>;
  /** Sets a latency profile for this channel (sim.latency with this channel). */
  latency(profile: Omit<LatencyProfile, "channel">): Promise<LatencyProfile>;
  /** Overrides a behaviour switch for this channel (sim.setSwitch with this channel). */
  setSwitch<N extends SwitchName>(name: N, value: SwitchValues[N]): Promise<SwitchState>;
  /** Puts the scenario's value back for this channel: of one switch, or every one. */
  resetSwitch(name?: SwitchName): Promise<{ reset: string[] } & JsonObject>;
  /** Holds this channel to a capacity limit (docs/limits.md), over its scenario's: wait a Go duration ("250ms") or milliseconds. */
  limit(limit: Limit): Promise<LimitState>;
  /** This channel's capacity limit in force, with its counts; null when none. */
  limits(): Promise<LimitState | null>;
  /** Removes this channel's run-time limit: its scenario's, if any, is in force again. */
  removeLimit(): Promise<JsonObject>;
  /** Schedules a coupon-status push: { offerId, reason, eventType?, at?, repeat?, ... }; resolves before it is attempted (await it with webhookInbox().next()). */
  webhook(push: JsonObject): Promise<JsonObject>;
  reset(): Promise<void>;
  /** The conformance report of this channel: sim.report({ ...options, channel: this }). */
  report(options?: ReportOptions): Promise<Report>;
  journal(query?: Record<string, string>): Promise<JsonObject>;
  /** A local endpoint made the channel's webhookUrl (PATCH): credentials stay. */
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

/** The library's signing client of a channel (absent for a certificate-only channel). */
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

/** A channel's capacity limit (docs/limits.md): a zero or absent field bounds nothing; inFlight or rate is needed. */
export interface Limit {
  inFlight?: number;
  rate?: number;
  burst?: number;
  wait?: string | number;
}

/** A channel's capacity limit in force (schemas/control.limits.json). */
export interface LimitState {
  channel: string;
  limit: { inFlight?: number; rate?: number; burst?: number; wait?: string };
  burst: number;
  source: "run-time" | "scenario";
  scenario?: { inFlight?: number; rate?: number; burst?: number; wait?: string };
  stats: { inFlight: number; waiting: number; admitted: number; waited: number; refused: number };
}

/**
 * A latency profile (docs/latency.md; schemas/control.latency.json): exactly one of fixed,
 * uniform and lognormal; durations as Go writes them ("250ms"), each at most 1m.
 */
export interface LatencyProfile {
  /** An operation name (GetReward, getCatalogue, ...) or "*". */
  endpoint: string;
  channel?: string;
  fixed?: string;
  uniform?: { min: string; max: string };
  lognormal?: { median: string; p99: string };
  /** Caps every draw. */
  max?: string;
  seed?: number;
  samples?: number;
}
