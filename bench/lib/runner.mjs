// Generic HTTP benchmark runner: sends each query sequentially (warm-ups first, not recorded),
// measures client latency, reads the worker's Server-Timing, and summarizes per query.
// Used by bench/catalog.mjs; other benches (stats, feeds) build their own query lists.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseD1Timing } from "../../scripts/lib/server-timing.mjs";
import { max, median, percentile } from "./stats.mjs";

/**
 * A query: `{ name, path, headers?, method?, note?, cold? }`; path is relative to the base URL and
 * already carries its query string (callers decide the encoding). `cold: true` adds a fresh
 * `_cb=<n>` parameter to every request, so the worker's edge cache never answers it (the
 * worker ignores parameters it does not know).
 */

let cacheBuster = 0;
function requestUrl(baseUrl, query) {
  const url = new URL(query.path, baseUrl);
  if (query.cold) url.searchParams.set("_cb", `${process.pid}-${Date.now()}-${cacheBuster++}`);
  return url.href;
}

const RETRY_LIMIT = 5;

/** One request; body read completely (that is part of the latency). Never throws. */
export async function sendOnce(baseUrl, query, { timeoutMs = 30_000 } = {}) {
  const url = requestUrl(baseUrl, query);
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: query.method ?? "GET",
      headers: query.headers ?? {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const latencyMs = performance.now() - started;
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return {
      status: res.status,
      latencyMs,
      timing: parseD1Timing(res.headers.get("server-timing")),
      retryAfter: res.headers.get("retry-after"),
      body,
      text,
      bytes: Buffer.byteLength(text),
    };
  } catch (err) {
    return {
      status: 0,
      latencyMs: performance.now() - started,
      error: err.cause?.code ?? err.name ?? String(err),
      timing: parseD1Timing(null),
      body: null,
      text: "",
      bytes: 0,
    };
  }
}

/** Rows in an answer: data.length when data is an array (E6, E13, E14, E16), else null. */
export function rowsOf(body) {
  if (body && Array.isArray(body.data)) return body.data.length;
  if (Array.isArray(body)) return body.length;
  return null;
}

/** Sends, waiting out 429s (Retry-After, capped) so the rate limit does not pollute samples. */
async function sendRespectingRateLimit(baseUrl, query, options, log) {
  for (let attempt = 0; ; attempt++) {
    const result = await sendOnce(baseUrl, query, options);
    if (result.status !== 429 || attempt >= RETRY_LIMIT) return result;
    const wait = Math.min(Math.max(Number(result.retryAfter) || 1, 1), 61);
    log(`    ${query.name}: 429, waiting ${wait} s (Retry-After)`);
    await sleep(wait * 1000);
  }
}

/**
 * Runs one query `warmups` + `runs` times sequentially. Returns the samples and a summary;
 * statistics cover the samples with status 200 only (others are reported by status).
 */
export async function runQuery(
  baseUrl,
  query,
  { runs = 20, warmups = 2, timeoutMs, log = () => {} } = {},
) {
  for (let i = 0; i < warmups; i++)
    await sendRespectingRateLimit(baseUrl, query, { timeoutMs }, log);
  const samples = [];
  let firstBody = null;
  let firstError = null;
  for (let i = 0; i < runs; i++) {
    const r = await sendRespectingRateLimit(baseUrl, query, { timeoutMs }, log);
    samples.push({
      status: r.status,
      latencyMs: round(r.latencyMs),
      bytes: r.bytes,
      rows: rowsOf(r.body),
      count: typeof r.body?.count === "number" ? r.body.count : null,
      ...r.timing,
      ...(r.error ? { error: r.error } : {}),
    });
    if (r.status === 200 && firstBody === null) firstBody = r.body;
    if (r.status !== 200 && firstError === null) firstError = r.error ?? errorText(r);
  }
  return { ...query, samples, summary: summarize(samples), error: firstError, sample: firstBody };
}

function errorText(r) {
  const message = r.body?.error ?? r.body?.message ?? r.text;
  return typeof message === "string"
    ? message.slice(0, 200)
    : JSON.stringify(message).slice(0, 200);
}

const round = (v, digits = 2) => (v === null || v === undefined ? null : Number(v.toFixed(digits)));

/** Per-query summary over the 200 samples. */
export function summarize(samples) {
  const statuses = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const ok = samples.filter((s) => s.status === 200);
  const pick = (key) => ok.map((s) => s[key]);
  return {
    statuses,
    ok: ok.length,
    rows: median(pick("rows")),
    count: median(pick("count")),
    bytes: median(pick("bytes")),
    rowsReadP50: round(median(pick("rowsRead")), 1),
    rowsReadMax: max(pick("rowsRead")),
    queriesP50: round(median(pick("queries")), 1),
    d1MsP50: round(median(pick("d1Ms"))),
    workerMsP50: round(median(pick("totalMs"))),
    latencyP50: round(median(pick("latencyMs"))),
    latencyP95: round(percentile(pick("latencyMs"), 95)),
  };
}

/** Runs the queries in order, logging one line each; returns their results. */
export async function runAll(baseUrl, queries, options = {}) {
  const log = options.log ?? ((line) => console.error(line));
  const results = [];
  for (const [i, query] of queries.entries()) {
    const result = await runQuery(baseUrl, query, { ...options, log });
    const s = result.summary;
    const status = Object.entries(s.statuses)
      .map(([k, n]) => (k === "0" ? `ERR×${n}` : `${k}×${n}`))
      .join(" ");
    log(
      `  [${i + 1}/${queries.length}] ${query.name}: ${status}${s.ok ? `, p50 ${s.latencyP50} ms` : ""}${result.error ? ` (${result.error})` : ""}`,
    );
    results.push(result);
  }
  return results;
}

/** Fails fast when nothing listens at the base URL (any HTTP answer counts as up). */
export async function checkServer(baseUrl) {
  const r = await sendOnce(baseUrl, { path: "/" }, { timeoutMs: 10_000 });
  if (r.status === 0) {
    throw new Error(`no server at ${baseUrl} (${r.error}); start it with \`npm run dev\``);
  }
}
