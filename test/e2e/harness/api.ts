// HTTP helpers for tests against the running worker (real fetch over loopback): organizations
// through the operator API, uploads through E1/parts/E2, reports. Each test file creates its own
// organizations, so files sharing the server never see each other's data.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./worker";

export interface Service {
  baseUrl: string;
  adminToken: string;
}

export interface Org {
  organizationKey: string;
  syncCode: string;
  apiKey: string;
  apiSecret: string;
  apiToken: string;
}

export async function json<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(
      `${res.url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
}

async function expectOk<T = any>(what: string, res: Response): Promise<T> {
  const body = await json<T>(res);
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

let orgCounter = 0;

export async function createOrg(
  service: Service,
  options: { plan?: "standard" | "enterprise"; entitlements?: string[]; key?: string } = {},
): Promise<Org> {
  const organizationKey =
    options.key ?? `e2e${Date.now().toString(36)}${process.pid.toString(36)}${orgCounter++}`;
  const res = await fetch(`${service.baseUrl}/admin/organizations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      organizationKey,
      plan: options.plan ?? "enterprise",
      entitlements: options.entitlements ?? [],
    }),
  });
  const body = await expectOk<{ credentials: Omit<Org, "organizationKey"> }>(
    "POST /admin/organizations",
    res,
  );
  return { organizationKey, ...body.credentials };
}

export function writeHeaders(org: Org): Record<string, string> {
  return {
    "X-Service-Sync-Code": org.syncCode,
    "X-Service-Api-Key": org.apiKey,
    "X-Service-Api-Secret": org.apiSecret,
  };
}

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(ROOT, "test", "fixtures", name)));
}

export interface Content {
  contentKey: string;
  status: string;
  duration: number | null;
  url: string | null;
  [field: string]: unknown;
}

/** Publishes a video through the real flow (E1, PUT each part to its signed URL, E2) and returns E3's record. */
export async function publishVideo(
  service: Service,
  org: Org,
  mp4: Uint8Array,
  body: Record<string, unknown> = {},
): Promise<Content> {
  const headers = { ...writeHeaders(org), "Content-Type": "application/json" };
  const created = await expectOk(
    "E1 POST /v2/content/",
    await fetch(`${service.baseUrl}/v2/content/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ contentSize: mp4.byteLength, title: "e2e video", ...body }),
    }),
  );
  const { signedUrls, chunkSize, uploadId, key } = created.contentUploadData as {
    signedUrls: string[];
    chunkSize: number;
    uploadId: string;
    key: string;
  };
  const parts: { PartNumber: number; ETag: string }[] = [];
  for (const [i, url] of signedUrls.entries()) {
    const res = await fetch(url, {
      method: "PUT",
      body: mp4.slice(i * chunkSize, (i + 1) * chunkSize),
    });
    await expectOk(`PUT part ${i + 1}`, res);
    parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag")! });
  }
  await expectOk(
    "E2 POST /v2/content/complete",
    await fetch(`${service.baseUrl}/v2/content/complete`, {
      method: "POST",
      headers,
      body: JSON.stringify({ uploadId, key, parts }),
    }),
  );
  return getContent(service, org, created.contentKey);
}

export async function getContent(service: Service, org: Org, contentKey: string): Promise<Content> {
  const res = await fetch(
    `${service.baseUrl}/v2/content?contentKey=${encodeURIComponent(contentKey)}`,
    { headers: writeHeaders(org) },
  );
  return expectOk<Content>("E3 GET /v2/content", res);
}

/**
 * How long a test waits for work it started in the background (a queue's consumer, a page's
 * script, a browser's start) before failing. A hang detector, not a speed check: a wait ends as
 * soon as the work is done, so a wide bound costs nothing when the test passes, and it stays far
 * beyond what that work takes on a busy 2-core machine.
 */
export const SETTLED_MS = 180_000;

/**
 * How a test polls a report for events it sent: they are counted by the queue consumer after the
 * queue closes a batch (max_batch_timeout, 2 s in wrangler.toml, which `wrangler dev` runs), plus
 * the consumer's own time. Polling, so a test waits only as long as it takes.
 */
export const COUNTED = { timeout: SETTLED_MS, interval: 200 };

/** GET <path>?organization_key=...&<params>; resolves to the status and the parsed body. */
/**
 * A report of the organization: organization_key with its sync code (E8, E9, E11, E12), or with
 * write credentials for the viewer report (E10: viewer rows are personal data).
 */
export async function report<T = any>(
  service: Service,
  path: string,
  org: Org,
  params: Record<string, string>,
): Promise<{ status: number; body: T }> {
  const query = new URLSearchParams({ organization_key: org.organizationKey, ...params });
  const headers: Record<string, string> = path.endsWith("/get_viewer_reports")
    ? {
        "X-Service-Sync-Code": org.syncCode,
        "X-Service-Api-Key": org.apiKey,
        "X-Service-Api-Secret": org.apiSecret,
      }
    : { "X-Service-Sync-Code": org.syncCode };
  const res = await fetch(`${service.baseUrl}${path}?${query}`, { headers });
  return { status: res.status, body: await json<T>(res) };
}

/** The UTC day (YYYY-MM-DD) `offsetDays` from today; events sent now count on today's. */
export const utcDay = (offsetDays = 0) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** Report dates around today: yesterday to tomorrow, so a test running over midnight UTC still finds its rows. */
export const aroundToday = () => ({ start_date: utcDay(-1), end_date: utcDay(1) });

/** The counters of every row (numbers only) summed by name: what a test compares with what it sent. */
/** The plays (video_played) E8 counts today (UTC) for `contentKey`. */
export async function playsToday(service: Service, org: Org, contentKey: string): Promise<number> {
  const today = utcDay(0);
  const { body } = await report(service, "/prod/get_video_reports", org, {
    start_date: today,
    end_date: today,
    content_key: contentKey,
  });
  return (body.data as { video_played?: number }[]).reduce(
    (n, row) => n + Number(row.video_played ?? 0),
    0,
  );
}

export function sumCounters(rows: Record<string, unknown>[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const row of rows) {
    for (const [name, value] of Object.entries(row)) {
      if (typeof value === "number" && value !== 0) sums[name] = (sums[name] ?? 0) + value;
    }
  }
  return sums;
}
