// The run: requests in flight, each answer checked and counted, the result.
import http from "node:http";
import { isLoopbackUrl } from "../net.mjs";
import { createRng } from "../prng.mjs";
import { ENTITLEMENTS } from "../rules.mjs";
import { buildRequest } from "./build-request.mjs";
import {
  curlLine,
  excerptText,
  fromRuntime,
  serialize,
  shapeProblem,
  statusClass,
} from "./checks.mjs";
import { DEFAULTS, DEMO_CREDENTIALS, EXCERPT } from "./config.mjs";
import { sendHttp } from "./http.mjs";
import { operationsOf } from "./openapi.mjs";
import { guard } from "./safety.mjs";
import { currentMinute, harvest, newOrg, setupRun } from "./setup.mjs";
import { DEFAULT_NAMES, STATS_FIELDS } from "./values.mjs";

/**
 * @typedef {{ index: number, method: string, path: string, status: number, curl: string, [key: string]: unknown }} FuzzAnswer
 * @typedef {{ seed: string | number, requests: number, elapsedSeconds: number, byClass: Record<string, number>,
 *   byStatus: Record<string, number>, byOperation: Record<string, unknown>, rateLimited: number,
 *   serverErrors: FuzzAnswer[], timeouts: FuzzAnswer[], connectionErrors: FuzzAnswer[],
 *   shapeViolations: FuzzAnswer[], missingNosniff: FuzzAnswer[], [key: string]: unknown }} FuzzResult
 */

/** How long a request sent again after a timeout may take (an answer takes milliseconds). */
const RETRY_TIMEOUT_MS = 60_000;

/**
 * Fuzzes the service at baseUrl (loopback only) and resolves to the result.
 *
 * @param {object} options
 * @param {string} options.baseUrl            http://127.0.0.1:<port>, http://localhost:<port> or http://[::1]:<port>
 * @param {number} [options.requests]         stop after this many requests (setup requests not counted)
 * @param {number} [options.seconds]          stop sending after this many seconds (in-flight requests finish, each within timeoutMs)
 * @param {number|string} [options.seed]      PRNG seed (random when omitted; the result carries it)
 * @param {object} [options.credentials]      { adminToken, network, organizations: [{organizationKey, syncCode, apiKey, apiSecret, apiToken, mmiKey, plan, contentKeys, feedIds}], protectedOrganizations }
 * @param {(r: object) => void} [options.onResult]  called after every request with
 *   { index, operation, method, path, status, error, ms, mutations, response }
 * @param {number} [options.concurrency]      requests in flight (default 4)
 * @param {number} [options.timeoutMs]        per request (default 30000): a timeout is a failure
 * @param {number} [options.freshOrganizations] enterprise organizations to create through the operator API (default 2)
 * @returns {Promise<FuzzResult>} each listed answer has index, method, path (300 characters at
 *   most), mutations, requestBody and response excerpts, status and a curl line
 */
export async function fuzz(options) {
  const opts = {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  };
  const { baseUrl, onResult } = opts;
  if (!isLoopbackUrl(baseUrl))
    throw new Error(
      `refusing ${baseUrl}: only http://127.0.0.1, http://localhost or http://[::1] are allowed`,
    );
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const base = new URL(baseUrl);
  const target = { host: base.hostname.replace(/^\[|\]$/g, ""), port: Number(base.port || 80) };
  const basePath = base.pathname.replace(/\/$/, "");
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const send = async (r) => {
    const request = { ...r, path: basePath + r.path };
    const res = await sendHttp(target, request, {
      agent: r.isolated ? false : agent,
      timeoutMs: opts.timeoutMs,
      keepBytes: r.keepBytes,
    });
    if (res.error !== "timeout") return res;
    // wrangler dev's proxy holds the requests in flight when the worker restarts (as it does
    // after a chunked request, sometimes seconds later on a busy machine) and replays them; one
    // whose body it already read cannot be replayed and never gets an answer. Sent again once,
    // on a new connection, within RETRY_TIMEOUT_MS: a hang that repeats is a finding.
    const again = await sendHttp(target, request, {
      agent: false,
      timeoutMs: Math.min(opts.timeoutMs, RETRY_TIMEOUT_MS),
      keepBytes: r.keepBytes,
    });
    return { ...again, retriedAfterTimeout: true };
  };
  const credentials = opts.credentials ?? DEMO_CREDENTIALS;
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;

  const result = {
    seed,
    baseUrl,
    requests: 0,
    setupRequests: 0,
    elapsedSeconds: 0,
    waitedForRateLimitSeconds: 0,
    /** Requests sent again once because a reused keep-alive connection was reset as they went out. */
    retriedAfterReset: 0,
    /** Requests sent again once because the first attempt got no answer (see send). */
    retriedAfterTimeout: 0,
    /** Restarts of the worker by wrangler dev after a chunked request, absorbed by an uncounted probe. */
    absorbedRestarts: 0,
    /** Request numbers given up because ten drafts all touched what the fuzzer must not change. */
    skippedByGuard: 0,
    byClass: {},
    byStatus: {},
    byOperation: {},
    rateLimited: { total: 0, plan: 0, authFailures: 0, other: 0 },
    serverErrors: [],
    timeouts: [],
    connectionErrors: [],
    clientRefusals: [],
    shapeViolations: [],
    missingNosniff: [],
    runtimeAnswers: [],
    setupLog: [],
    organizations: [],
  };

  // The document, read whole: it is larger than the 256 KiB kept of other answers.
  const docRes = await send({
    method: "GET",
    path: "/openapi.json",
    headers: {},
    keepBytes: 16 * 1024 * 1024,
  });
  if (docRes.error || docRes.status !== 200 || docRes.truncated)
    throw new Error(
      `GET ${baseUrl}/openapi.json failed: ${docRes.error ?? `HTTP ${docRes.status}`}${docRes.truncated ? " (over 16 MiB)" : ""} ${docRes.message ?? ""}`,
    );
  const doc = JSON.parse(docRes.body.toString("utf8"));
  const operations = operationsOf(doc);
  const entitlementEnum =
    doc.components?.schemas?.AdminCreateOrganization?.properties?.entitlements?.items?.enum;
  const eventEnum = doc.components?.schemas?.StatsEvent?.properties?.event?.enum;

  const run = {
    seed,
    options: opts,
    send,
    adminToken: credentials.adminToken,
    network: credentials.network,
    entitlements:
      Array.isArray(entitlementEnum) && entitlementEnum.length ? entitlementEnum : ENTITLEMENTS,
    orgs: (credentials.organizations ?? []).map((o) => newOrg(o)),
    counters: Array.isArray(eventEnum) && eventEnum.length ? eventEnum : STATS_FIELDS,
    setupRequests: 0,
    state: {
      publishedKeys: new Set(),
      protectedOrgKeys: new Set([
        ...(credentials.protectedOrganizations ?? []),
        ...(credentials.organizations ?? []).map((o) => o.organizationKey),
        "demo",
        "partner",
      ]),
      protectedContentKeys: new Set(),
      protectedFeedIds: new Set(),
      allFeedIds: new Set(),
      scratchOrgs: [],
      etags: [],
      names: {
        tags: new Set(DEFAULT_NAMES.tags),
        categories: new Set(DEFAULT_NAMES.categories),
        events: new Set(DEFAULT_NAMES.events),
        customFieldNames: new Set(DEFAULT_NAMES.customFieldNames),
      },
    },
    authFailures: { minute: -1, used: 0 },
    authFailureBudget() {
      const m = currentMinute();
      if (this.authFailures.minute !== m) this.authFailures = { minute: m, used: 0 };
      return this.authFailures.used < opts.authFailuresPerMinute;
    },
    spendAuthFailure() {
      this.authFailureBudget();
      this.authFailures.used++;
    },
  };
  for (const o of run.orgs) for (const k of o.contentKeys) run.state.protectedContentKeys.add(k);
  for (const o of run.orgs) for (const f of o.feedIds) run.state.protectedFeedIds.add(f);

  result.setupLog = await setupRun(run);
  result.setupRequests = run.setupRequests;
  result.organizations = run.orgs.map((o) => ({
    organizationKey: o.organizationKey,
    plan: o.plan,
    fresh: o.fresh,
    mmiKey: o.mmiKey ?? null,
  }));
  const drawn = (
    run.orgs.length
      ? operations
      : operations.filter((op) => op.auth === "public" || op.auth === "admin")
  ).filter((op) => op.auth !== "admin" || run.adminToken);
  const weights = drawn.map((op) => [opWeight(op), op]);

  const orgFor = (rng, op) => {
    if (op.auth === "public" || op.auth === "admin")
      return rng.chance(0.5) && run.orgs.length ? rng.pick(run.orgs) : null;
    const m = currentMinute();
    const counted = op.auth !== "events";
    const available = run.orgs.filter((o) => {
      if (o.minute !== m) {
        o.minute = m;
        o.used = 0;
      }
      return !counted || o.used < Math.floor(o.limit * opts.rateLimitShare);
    });
    if (!available.length) return undefined;
    // the plan with the larger limit takes proportionally more traffic
    const org = rng.weighted(available.map((o) => [o.limit, o]));
    if (counted) org.used++;
    return org;
  };

  let dispatched = 0;
  // Chunked bodies the worker answers early (413, 411, ...) make wrangler dev restart the
  // worker, and the next request through it then fails ("Your worker restarted mid-request",
  // "Network connection lost"; a GET hangs): a local-runtime quirk, seen with a bare worker too.
  // Such requests are sent alone, followed by an uncounted POST /openapi.json (a 404 normally)
  // that absorbs the restart, so no other request's answer is blamed for it.
  let inFlight = 0;
  let exclusive = null;
  const sendCounted = async (sent) => {
    const heavy = sent.chunked;
    while (exclusive) await exclusive;
    if (!heavy) {
      inFlight++;
      try {
        return await send(sent);
      } finally {
        inFlight--;
      }
    }
    let release;
    exclusive = new Promise((r) => (release = r));
    try {
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
      const res = await send(sent);
      // the restart may come a moment after the answer (later on a busy machine): probe a few
      // times over about three seconds; a restart shows as wrangler's 503 or as miniflare's entry
      // worker failing to replay the request it held
      for (const pause of [0, 100, 300, 600, 900, 1200]) {
        if (pause) await new Promise((r) => setTimeout(r, pause));
        const probe = await send({
          method: "POST",
          path: "/openapi.json",
          headers: { "Content-Length": "0" },
        });
        const text = probe.body?.toString() ?? "";
        if (
          (probe.status === 503 && /restarted mid-request/.test(text)) ||
          (probe.status === 500 && /Cannot reconstruct a Request/.test(text))
        ) {
          result.absorbedRestarts++;
          break;
        }
      }
      return res;
    } finally {
      exclusive = null;
      release();
    }
  };
  const worker = async () => {
    for (;;) {
      if (dispatched >= opts.requests || Date.now() >= deadline) return;
      const index = dispatched++;
      let req = null;
      let sent = null;
      let pathname = "/";
      for (let attempt = 0; attempt < 10 && !req; attempt++) {
        const rng = createRng(attempt ? `${seed}:${index}:${attempt}` : `${seed}:${index}`);
        const op = rng.weighted(weights);
        let org = orgFor(rng, op);
        while (org === undefined) {
          // Every organization used its share of this minute: wait for the next one.
          const wait = Math.min(60_000 - (Date.now() % 60_000) + 50, deadline - Date.now());
          if (wait <= 0) {
            dispatched = opts.requests; // the time is up
            return;
          }
          result.waitedForRateLimitSeconds += wait / 1000;
          await new Promise((r) => setTimeout(r, wait));
          org = orgFor(rng, op);
        }
        const candidate = buildRequest(run, op, org, rng);
        const s = serialize(run, candidate);
        let pn;
        try {
          pn = new URL(s.path, "http://x").pathname;
        } catch {
          pn = s.path.split("?")[0];
        }
        if (guard(run, candidate, s.path, pn, org)) {
          req = candidate;
          sent = s;
          pathname = pn;
        }
      }
      if (!req) {
        result.skippedByGuard++;
        continue;
      }
      const res = await sendCounted(sent);
      result.requests++;
      if (res.retriedAfterReset) result.retriedAfterReset++;
      if (res.retriedAfterTimeout) result.retriedAfterTimeout++;
      record(result, run, index, req, sent, pathname, res, baseUrl);
      if (!res.error) harvest(run, req, sent, res);
      onResult?.({
        index,
        operation: req.op.id,
        method: sent.method,
        path: sent.path.slice(0, EXCERPT),
        status: res.status ?? null,
        error: res.error ?? null,
        ms: res.ms,
        mutations: req.mutations,
        response: res.error ? res.message : excerptText(res.body, 200),
      });
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  agent.destroy();
  result.elapsedSeconds = Math.round((Date.now() - started) / 100) / 10;
  result.waitedForRateLimitSeconds = Math.round(result.waitedForRateLimitSeconds);
  // What fails a run: 5xx, timeouts, connection errors, error-shape violations. Missing nosniff is
  // reported beside them (a warning; the CLI's --strict makes it fail too).
  result.findings =
    result.serverErrors.length +
    result.timeouts.length +
    result.connectionErrors.length +
    result.shapeViolations.length;
  result.warnings = result.missingNosniff.length;
  return result;
}

export function opWeight(op) {
  const p = op.path;
  if (p === "/v2/videos") return 8;
  if (p === "/v2/analytics/{type}") return 3;
  if (
    [
      "/prod/search_metadata",
      "/prod/get_video_by_cattag",
      "/prod/search_video_list",
      "/search_video_feed",
      "/get_videos",
    ].includes(p)
  )
    return 2.5;
  if (p === "/v2/content" && op.method === "POST") return 3;
  if (p === "/v2/uploads/part") return 3;
  if (p === "/v2/content/complete") return 2;
  if (p.startsWith("/media/")) return 2.5;
  if (p === "/v2/events") return 2.5;
  if (p.startsWith("/admin/")) return 0.6;
  return 1;
}

export function record(result, run, index, req, sent, pathname, res, baseUrl) {
  const opKey = `${sent.method} ${req.op.path}`;
  const byOp = (result.byOperation[opKey] ??= { total: 0 });
  byOp.total++;
  const entry = () => ({
    index,
    operation: req.op.id,
    method: sent.method,
    path:
      sent.path.length > EXCERPT
        ? `${sent.path.slice(0, EXCERPT)}... (${sent.path.length} chars)`
        : sent.path,
    mutations: req.mutations,
    requestBody: excerptText(sent.body),
    requestBytes: sent.body?.length ?? 0,
    status: res.status ?? null,
    response: excerptText(res.body),
    ms: res.ms,
    curl: curlLine(baseUrl, sent, `fuzz-body-${index}.bin`),
    // full body for the bodies too large for the curl line (the CLI writes them with --out)
    bodyBase64: sent.body && sent.body.length > 2048 ? sent.body.toString("base64") : undefined,
  });
  const headBytes =
    sent.path.length +
    Object.entries(sent.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  const unknownMethod = !/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE|PROPFIND)$/.test(
    sent.method,
  );
  if (res.error === "connection" && (headBytes > 60_000 || (unknownMethod && sent.body?.length))) {
    // wrangler dev refuses a request head over ~64 KB (431) or a method it does not know (501)
    // and closes the connection; with a body still being sent that is a reset before the answer
    // can be read: the runtime's doing, not the worker's.
    result.byClass["runtime reset"] = (result.byClass["runtime reset"] ?? 0) + 1;
    byOp["runtime reset"] = (byOp["runtime reset"] ?? 0) + 1;
    const why =
      headBytes > 60_000
        ? `a request head of ${headBytes} bytes (over the runtime's ~64 KB limit)`
        : `the method ${sent.method}, which the runtime refuses (501)`;
    result.runtimeAnswers.push({
      ...entry(),
      error: res.message,
      note: `connection reset on ${why}`,
    });
    return;
  }
  if (res.error) {
    const cls =
      res.error === "timeout"
        ? "timeout"
        : res.error === "client"
          ? "not sent"
          : "connection error";
    result.byClass[cls] = (result.byClass[cls] ?? 0) + 1;
    byOp[cls] = (byOp[cls] ?? 0) + 1;
    const e = { ...entry(), error: res.message };
    if (res.error === "timeout") result.timeouts.push(e);
    else if (res.error === "client") result.clientRefusals.push(e);
    else result.connectionErrors.push(e);
    return;
  }
  const cls = statusClass(res.status);
  result.byClass[cls] = (result.byClass[cls] ?? 0) + 1;
  result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
  byOp[cls] = (byOp[cls] ?? 0) + 1;
  const runtime = fromRuntime(sent.method, res.status, res.headers, res.body);
  if (runtime) {
    result.runtimeAnswers.push({
      ...entry(),
      note: "answered by the local runtime (wrangler/workerd), not the worker: none of Server-Timing, Referrer-Policy, X-Content-Type-Options",
    });
  }
  // A failed authentication the fuzzer did not mean: it counts against the per-address throttle too.
  if (res.status === 401 && !req.authRisk) run.spendAuthFailure();
  if (res.status === 429) {
    result.rateLimited.total++;
    const text = res.body?.toString("utf8") ?? "";
    if (/rate limit exceeded/i.test(text)) result.rateLimited.plan++;
    else if (/failed authentications/i.test(text)) {
      result.rateLimited.authFailures++;
      // the service's count for this address is past the limit: no more deliberate failures this minute
      run.authFailureBudget();
      run.authFailures.used = Math.max(run.authFailures.used, run.options.authFailuresPerMinute);
    } else result.rateLimited.other++;
  }
  if (runtime) return;
  if (res.status >= 500) {
    const e = entry();
    // Still a finding, but say where it came from: wrangler dev's wrapper renders exceptions that
    // escaped the worker, and also its own failures while it reloads the worker after a change.
    if (
      /miniflare\/dist\/src\/workers\/core\/entry\.worker\.js/.test(
        res.body?.toString("utf8", 0, 4000) ?? "",
      )
    ) {
      e.note =
        "rendered by miniflare's entry worker (an exception outside the worker's error handler, or wrangler dev reloading the worker): re-run the curl line";
    }
    result.serverErrors.push(e);
  }
  if (String(res.headers["x-content-type-options"] ?? "").toLowerCase() !== "nosniff")
    result.missingNosniff.push(entry());
  if (res.status >= 400 && sent.method.toUpperCase() !== "HEAD") {
    const problem = shapeProblem(
      pathname,
      res.status,
      res.headers,
      res.truncated ? null : res.body,
    );
    if (problem) result.shapeViolations.push({ ...entry(), problem });
  }
}
