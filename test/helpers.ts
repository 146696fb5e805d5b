// Shared test helpers: every call goes through the real worker (SELF.fetch, or its fetch handler
// with an execution context of its own: callSettled) against local D1/R2/KV. Each test file
// creates its own organizations so files don't share rate limits.
import {
  createExecutionContext,
  createScheduledController,
  env,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { expect, vi } from "vitest";
import worker from "../src/index";
import { dataUrlBytes } from "./fixture-bytes";

export { dataUrlBytes };

export const ORIGIN = "https://catalog.test";

/**
 * How long a test waits for work it started in the background (a queue's consumer, the work
 * after E2, a cron run) before failing. A hang detector, not a speed check: a wait ends as soon
 * as the work is done, so a wide bound costs nothing when the test passes, and it stays far
 * beyond what that work takes on a busy 2-core machine.
 */
export const SETTLED_MS = 180_000;
export const ADMIN_TOKEN = "test-admin-token";

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(path.startsWith("http") ? path : `${ORIGIN}${path}`, init);
}

/**
 * Like `call`, but hands the request to the worker's fetch handler with an execution context of
 * its own and resolves once the request's waitUntil work (feed rebuilds, rate-limit sync) is
 * done, so the test can check its effects without polling. SELF.fetch does not wait for it.
 */
export async function callSettled(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(path.startsWith("http") ? path : `${ORIGIN}${path}`, init),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** The worker's cron as it runs at `at` (ms), to its end (waitUntil work included). */
export async function cronAt(at: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "* * * * *", scheduledTime: at }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

export async function callJson<T = any>(
  path: string,
  init: RequestInit = {},
): Promise<{ res: Response; body: T }> {
  const res = await call(path, init);
  const text = await res.text();
  return { res, body: (text ? JSON.parse(text) : null) as T };
}

export function admin(path: string, method = "GET", body?: unknown) {
  return callJson(path, {
    method,
    headers: {
      Authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export interface TestOrg {
  organizationKey: string;
  syncCode: string;
  apiKey: string;
  apiSecret: string;
  apiToken: string;
}

let orgCounter = 0;

/**
 * Creates an organization. Organizations go to the two statistics shards in turn (unless
 * `statsShard` says), so every statistics test runs on the sharded layout and a file's
 * organizations live in both.
 */
export async function createOrg(
  options: {
    plan?: "standard" | "enterprise";
    entitlements?: string[];
    network?: string;
    key?: string;
    statsShard?: number;
  } = {},
): Promise<TestOrg> {
  const n = orgCounter++;
  const organizationKey =
    options.key ?? `org${Date.now().toString(36)}${n}${Math.random().toString(36).slice(2, 6)}`;
  const { res, body } = await admin("/admin/organizations", "POST", {
    organizationKey,
    plan: options.plan ?? "enterprise",
    entitlements: options.entitlements ?? [],
    ...(options.network && { network: options.network }),
    statsShard: options.statsShard ?? (n + 1) % 2,
  });
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { organizationKey, ...body.credentials };
}

/** The statistics database (shard) of an organization, for the tests' own queries. */
export async function statsD1(org: TestOrg | { organizationKey: string }): Promise<D1Database> {
  const shard = await env.DB.prepare(
    "select stats_shard from organizations where organization_key = ?",
  )
    .bind(org.organizationKey)
    .first<number>("stats_shard");
  if (shard === null) throw new Error(`no organization ${org.organizationKey}`);
  return shard === 0 ? env.STATS_DB : env.STATS_DB_1!;
}

export function writeHeaders(
  org: TestOrg,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    "X-Service-Sync-Code": org.syncCode,
    "X-Service-Api-Key": org.apiKey,
    "X-Service-Api-Secret": org.apiSecret,
    ...extra,
  };
}

export function writeJson(
  org: TestOrg,
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  return callJson(path, {
    method,
    headers: { ...writeHeaders(org, extra), "Content-Type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Decodes a Vite `?inline` data: URL into bytes. */
/** Appends a trailing `free` box so a small MP4 reaches `size` bytes (and still probes the same). */
export function padWithFreeBox(mp4: Uint8Array, size: number): Uint8Array {
  const pad = size - mp4.byteLength;
  if (pad < 8) throw new Error("padding needs at least 8 bytes");
  const out = new Uint8Array(size);
  out.set(mp4, 0);
  const view = new DataView(out.buffer);
  view.setUint32(mp4.byteLength, pad);
  out.set([0x66, 0x72, 0x65, 0x65], mp4.byteLength + 4); // "free"
  return out;
}

export const CHUNK_SIZE = 5 * 1024 * 1024;

/** PUTs every part to its signed URL and returns the parts list for E2. */
export async function uploadParts(signedUrls: string[], bytes: Uint8Array, chunkSize = CHUNK_SIZE) {
  const parts: { PartNumber: number; ETag: string }[] = [];
  for (const [i, url] of signedUrls.entries()) {
    const res = await call(url, {
      method: "PUT",
      body: bytes.slice(i * chunkSize, (i + 1) * chunkSize),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag")! });
  }
  return parts;
}

export async function sha256(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Publishes a video through the real flow (E1, one part PUT, E2) with a small real MP4, and
 * returns its content key. `extraHeaders` may carry X-Service-MMI-Key.
 */
export async function publishVideo(
  org: TestOrg,
  mp4: Uint8Array,
  body: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): Promise<string> {
  const created = await writeJson(
    org,
    "POST",
    "/v2/content/",
    { contentSize: mp4.byteLength, ...body },
    extraHeaders,
  );
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  const parts = await uploadParts(created.body.contentUploadData.signedUrls, mp4);
  const done = await writeJson(
    org,
    "POST",
    "/v2/content/complete",
    {
      uploadId: created.body.contentUploadData.uploadId,
      key: created.body.contentUploadData.key,
      parts,
    },
    extraHeaders,
  );
  expect(done.res.status, JSON.stringify(done.body)).toBe(200);
  return created.body.contentKey as string;
}

export function readHeaders(
  org: TestOrg,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { "X-Service-Sync-Code": org.syncCode, ...extra };
}

/** D1 cost of a response, from its Server-Timing header. */
export function d1Cost(res: Response): { rowsRead: number; rowsWritten: number; queries: number } {
  const m = res.headers
    .get("Server-Timing")
    ?.match(/rows_read=(\d+) rows_written=(\d+) queries=(\d+)/);
  if (!m) throw new Error("no D1 Server-Timing");
  return { rowsRead: Number(m[1]), rowsWritten: Number(m[2]), queries: Number(m[3]) };
}

/**
 * Per-minute limits count per wall-clock minute: a test that straddled a minute's end would start
 * a new count halfway. Pins the clock (Date only: timers still run) to just after the next
 * minute starts; the test file calls vi.useRealTimers() after each test.
 */
export function startOfAMinute(): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Math.ceil(Date.now() / 60_000) * 60_000 + 1_000);
}

/**
 * A binding (or any object) with some members replaced, the rest the real ones (methods bound to
 * it): a test arranges a failure, a count or a race on the real binding underneath.
 */
export function withMembers<T extends object>(
  real: T,
  replaced: Partial<Record<keyof T, unknown>>,
): T {
  return new Proxy(real, {
    get(target, prop) {
      if (Object.hasOwn(replaced, prop)) return replaced[prop as keyof T];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
