// The publisher console's server side (docs/console.md): sessions (cookie, CSRF token, Origin,
// expiry, sign-out, revocation by rotation), the page's Content-Security-Policy, the library
// listing of every status with keyset paging, the organization's own record, its label names,
// and self-service rotation.
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import mpeg4Url from "./fixtures/mpeg4-aac.mp4?inline";
import { createContent, ingest, utcDayAgo } from "./fixtures/stats";
import {
  ADMIN_TOKEN,
  admin,
  call,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  type TestOrg,
  uploadParts,
  writeHeaders,
  writeJson,
} from "./helpers";

const faststart = dataUrlBytes(faststartUrl);

interface Session {
  cookie: string;
  csrfToken: string;
  body: any;
}

async function signIn(body: Record<string, unknown>): Promise<Session> {
  const res = await call("/v2/console/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: ORIGIN },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  const setCookie = res.headers.get("Set-Cookie")!;
  return { cookie: setCookie.split(";")[0]!, csrfToken: json.csrfToken, body: json };
}

const keyAndSecret = (org: TestOrg) => ({
  syncCode: org.syncCode,
  apiKey: org.apiKey,
  apiSecret: org.apiSecret,
});

/** A request the session authenticates, as the console's page sends it. */
function withSession(
  s: Session,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return callJson(path, {
    method: init.method ?? "GET",
    headers: {
      Cookie: s.cookie,
      "X-CSRF-Token": s.csrfToken,
      Origin: ORIGIN,
      ...(init.body !== undefined && { "Content-Type": "application/json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("console sessions", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg();
  });

  it("signs in with the API key and secret: an HttpOnly, Secure, SameSite=Strict cookie and no secret in the answer", async () => {
    const res = await call("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify(keyAndSecret(org)),
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    const cookie = res.headers.get("Set-Cookie")!;
    expect(cookie).toMatch(/^evc_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/); // the tests' origin is https
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=28800/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(body).toEqual({
      organizationKey: org.organizationKey,
      name: expect.any(String),
      syncCode: org.syncCode,
      subOrganization: null,
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: expect.any(String),
      // The key and secret sign in as the organization's owner (docs/console.md "Members and roles").
      id: expect.stringMatching(/^ses_/),
      method: "key",
      member: null,
      role: "owner",
      capabilities: expect.arrayContaining(["content:write", "members:write", "owner:settings"]),
    });
    expect(JSON.stringify(body)).not.toContain(org.apiSecret);
    // The database keeps a hash of the session token, never the token.
    const token = cookie.slice("evc_session=".length, cookie.indexOf(";"));
    const rows = await env.DB.prepare("select token_hash from console_sessions").all<{
      token_hash: string;
    }>();
    expect(rows.results.some((r) => r.token_hash.includes(token))).toBe(false);
    expect(rows.results.length).toBeGreaterThan(0);
  });

  it("signs in with an API token; wrong credentials answer 401; a bad body 400 naming the problem", async () => {
    const s = await signIn({ apiToken: org.apiToken });
    expect(s.body.organizationKey).toBe(org.organizationKey);
    const wrong = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...keyAndSecret(org), apiSecret: "nope" }),
    });
    expect(wrong.res.status).toBe(401);
    expect(wrong.body).toEqual({
      status: "KO",
      error: expect.stringContaining("authentication failed"),
    });
    expect(wrong.res.headers.get("Set-Cookie")).toBeNull();
    const both = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...keyAndSecret(org), apiToken: "x" }),
    });
    expect(both.res.status).toBe(400);
    expect(both.body.error).toContain("either apiToken, or syncCode, apiKey and apiSecret");
    const partial = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ syncCode: org.syncCode }),
    });
    expect(partial.res.status).toBe(400);
    expect(partial.body.error).toContain("syncCode, apiKey and apiSecret are required together");
    const extra = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiToken: "x", password: "y" }),
    });
    expect(extra.res.status).toBe(400);
    expect(extra.body.error).toContain("password");
  });

  it("refuses a sign-in posted by a page of another origin (login CSRF)", async () => {
    const { res, body } = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
      body: JSON.stringify(keyAndSecret(org)),
    });
    expect(res.status).toBe(403);
    expect(body.error).toContain("another origin");
  });

  it("authenticates write endpoints with the cookie only together with the CSRF token, and writes only from its own origin", async () => {
    const s = await signIn(keyAndSecret(org));
    const ok = await withSession(s, "/v2/webhooks");
    expect(ok.res.status, JSON.stringify(ok.body)).toBe(200);
    // No token, a wrong token, a token of another session: refused.
    const other = await signIn(keyAndSecret(org));
    for (const csrf of [undefined, "0".repeat(64), other.csrfToken]) {
      const res = await call("/v2/webhooks", {
        headers: { Cookie: s.cookie, Origin: ORIGIN, ...(csrf && { "X-CSRF-Token": csrf }) },
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error).toContain("CSRF check failed");
    }
    // A write: from another origin, or with no Origin at all, refused; from this origin, done.
    const body = { contentSize: faststart.byteLength, title: "from the console" };
    for (const origin of ["https://evil.example", undefined]) {
      const res = await call("/v2/content/", {
        method: "POST",
        headers: {
          Cookie: s.cookie,
          "X-CSRF-Token": s.csrfToken,
          "Content-Type": "application/json",
          ...(origin && { Origin: origin }),
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).message).toContain("own origin");
    }
    const created = await withSession(s, "/v2/content/", { method: "POST", body });
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.title).toBe("from the console");
    // Credential headers take precedence: with them the cookie plays no part (no CSRF needed).
    const withHeaders = await callJson("/v2/webhooks", {
      headers: { ...writeHeaders(org), Cookie: "evc_session=garbage" },
    });
    expect(withHeaders.res.status).toBe(200);
    // The cookie does not stand in for read credentials (E6 wants the sync code).
    const e6 = await call("/v2/videos/", {
      headers: { Cookie: s.cookie, "X-CSRF-Token": s.csrfToken },
    });
    expect(e6.status).toBe(401);
  });

  it("tells the page its session after a reload, and ends it on sign-out (the cookie stops working)", async () => {
    const s = await signIn(keyAndSecret(org));
    const current = await callJson("/v2/console/session", { headers: { Cookie: s.cookie } });
    expect(current.res.status).toBe(200);
    expect(current.body).toEqual(s.body);
    // Sign-out is a write: the CSRF token and this origin.
    const forged = await call("/v2/console/session", {
      method: "DELETE",
      headers: { Cookie: s.cookie, Origin: "https://evil.example", "X-CSRF-Token": s.csrfToken },
    });
    expect(forged.status).toBe(403);
    const out = await withSession(s, "/v2/console/session", { method: "DELETE" });
    expect(out.res.status).toBe(200);
    expect(out.body).toEqual({ signedOut: true });
    expect(out.res.headers.get("Set-Cookie")).toMatch(/^evc_session=; Max-Age=0/);
    const after = await withSession(s, "/v2/webhooks");
    expect(after.res.status).toBe(401);
    expect(after.body.error).toContain("session has ended");
    expect(
      (await callJson("/v2/console/session", { headers: { Cookie: s.cookie } })).res.status,
    ).toBe(401);
    expect((await callJson("/v2/console/session")).res.status).toBe(401);
  });

  it("answers the session's status with 200 whether signed in or not (a signed-out page logs no failed request)", async () => {
    const none = await callJson("/v2/console/session/status");
    expect(none.res.status).toBe(200);
    expect(none.body).toEqual({ signedIn: false, session: null });
    expect(none.res.headers.get("Cache-Control")).toBe("no-store");
    expect(none.res.headers.get("Set-Cookie")).toBeNull();
    const s = await signIn(keyAndSecret(org));
    const open = await callJson("/v2/console/session/status", { headers: { Cookie: s.cookie } });
    expect(open.res.status).toBe(200);
    expect(open.body).toEqual({ signedIn: true, session: s.body });
    expect(await withSession(s, "/v2/console/session", { method: "DELETE" })).toMatchObject({
      res: { status: 200 },
    });
    // An ended session's cookie: signed out, and the cookie cleared.
    const ended = await callJson("/v2/console/session/status", { headers: { Cookie: s.cookie } });
    expect(ended.res.status).toBe(200);
    expect(ended.body).toEqual({ signedIn: false, session: null });
    expect(ended.res.headers.get("Set-Cookie")).toMatch(/^evc_session=; Max-Age=0/);
    const forged = await callJson("/v2/console/session/status", {
      headers: { Cookie: "evc_session=garbage" },
    });
    expect(forged.body).toEqual({ signedIn: false, session: null });
    // Not answered to another origin (it carries the CSRF token).
    const foreign = await callJson("/v2/console/session/status", {
      headers: { Cookie: s.cookie, Origin: "https://evil.example" },
    });
    expect(foreign.res.status).toBe(403);
    expect(foreign.body.error).toContain("another origin");
  });

  it("expires after 8 hours", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2031-03-01T08:00:00.000Z");
    vi.setSystemTime(start);
    const s = await signIn(keyAndSecret(org));
    expect(s.body.expiresAt).toBe("2031-03-01T16:00:00.000Z");
    vi.setSystemTime(start + 8 * 3600_000 - 1);
    expect((await withSession(s, "/v2/webhooks")).res.status).toBe(200);
    vi.setSystemTime(start + 8 * 3600_000);
    expect((await withSession(s, "/v2/webhooks")).res.status).toBe(401);
    const row = await env.DB.prepare(
      "select count(*) as n from console_sessions where expires_at = ?",
    )
      .bind(s.body.expiresAt)
      .first<{ n: number }>();
    expect(row!.n).toBe(0); // the refused lookup forgot it
  });

  it("the cron forgets expired sessions", async () => {
    const other = await createOrg();
    await signIn(keyAndSecret(other));
    const controller = createScheduledController({
      scheduledTime: Date.now() + 9 * 3600_000,
      cron: "*/5 * * * *",
    });
    const ctx = createExecutionContext();
    await worker.scheduled!(controller, env, ctx);
    await waitOnExecutionContext(ctx);
    const row = await env.DB.prepare(
      "select count(*) as n from console_sessions s join organizations o on o.id = s.organization_id where o.organization_key = ?",
    )
      .bind(other.organizationKey)
      .first<{ n: number }>();
    expect(row!.n).toBe(0);
  });
});

describe("sub-organization sessions", () => {
  it("a session opened with an MMI key sees only that sub-organization's content", async () => {
    const org = await createOrg({ entitlements: ["mmi"] });
    const sub = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Regional", mmiKey: `mmi${org.organizationKey}` },
    );
    expect(sub.res.status, JSON.stringify(sub.body)).toBe(200);
    const mmiKey = sub.body.mmiKey as string;
    const inSub = await publishVideo(
      org,
      faststart,
      { title: "sub" },
      { "X-Service-MMI-Key": mmiKey },
    );
    const inOrg = await publishVideo(org, faststart, { title: "main" });
    const s = await signIn({ apiToken: org.apiToken, mmiKey });
    expect(s.body.subOrganization).toEqual({ name: "Regional", mmiKey });
    const list = await withSession(s, "/v2/content/list");
    expect(list.body.contents.map((c: any) => c.contentKey)).toEqual([inSub]);
    // Another MMI header cannot widen it.
    const wider = await withSession(s, "/v2/content/list", {
      headers: { "X-Service-MMI-Key": "other" },
    });
    expect(wider.body.contents.map((c: any) => c.contentKey)).toEqual([inSub]);
    const whole = await signIn({ apiToken: org.apiToken });
    const all = await withSession(whole, "/v2/content/list");
    expect(all.body.contents.map((c: any) => c.contentKey)).toEqual([inOrg, inSub]);
    const self = await withSession(s, "/v2/organization");
    expect(self.body.subOrganizations.map((x: any) => x.mmiKey)).toEqual([mmiKey]);
    const rotate = await withSession(s, "/v2/organization/credentials/rotate", {
      method: "POST",
      body: { rotate: ["apiSecret"] },
    });
    expect(rotate.res.status).toBe(403);
    const unknown = await callJson("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiToken: org.apiToken, mmiKey: "nope" }),
    });
    expect(unknown.res.status).toBe(401);
  });
});

describe("the console page", () => {
  it("is served at /console/ with a strict Content-Security-Policy and no inline script", async () => {
    const res = await call("/console/");
    expect(res.status).toBe(200);
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await res.text();
    // Every script is a file of this origin.
    expect(html.match(/<script[^>]*>/g)).toEqual([
      '<script type="module" src="/console/console.js">',
    ]);
    expect(html).not.toMatch(/<script[^>]*>[^<]+<\/script>/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    const bare = await call("/console");
    expect(bare.status).toBe(200);
    expect(bare.headers.get("Content-Security-Policy")).toBe(csp);
  });
});

describe("library listing", () => {
  let org: TestOrg;
  let keys: { available: string[]; uploading: string; rejected: string };
  beforeAll(async () => {
    org = await createOrg();
    const available = [];
    for (let i = 0; i < 3; i++)
      available.push(
        await publishVideo(org, faststart, {
          title: `Harbour lights ${i}`,
          tags: i === 0 ? ["boats"] : ["city"],
          categories: ["News"],
        }),
      );
    const uploading = await writeJson(org, "POST", "/v2/content/", {
      contentSize: faststart.byteLength,
      title: "Still uploading",
    });
    // A rejected upload: MPEG-4 Part 2 video fails the H.264 check.
    const mpeg4 = dataUrlBytes(mpeg4Url);
    const bad = await writeJson(org, "POST", "/v2/content/", {
      contentSize: mpeg4.byteLength,
      title: "Wrong codec",
    });
    const parts = await uploadParts(bad.body.contentUploadData.signedUrls, mpeg4);
    const done = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: bad.body.contentUploadData.uploadId,
      key: bad.body.contentUploadData.key,
      parts,
    });
    expect(done.res.status).toBe(400);
    keys = { available, uploading: uploading.body.contentKey, rejected: bad.body.contentKey };
  });

  it("lists every status, newest first, the rejected one with its reason", async () => {
    const { res, body } = await callJson("/v2/content/list", { headers: writeHeaders(org) });
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.contents.map((c: any) => [c.contentKey, c.status])).toEqual([
      [keys.rejected, "rejected"],
      [keys.uploading, "uploading"],
      [keys.available[2], "available"],
      [keys.available[1], "available"],
      [keys.available[0], "available"],
    ]);
    expect(body.contents[0].rejectionReason).toMatch(/H\.264|codec/i);
    expect(body.contents[2]).toMatchObject({
      title: "Harbour lights 2",
      width: expect.any(Number),
      height: expect.any(Number),
      duration: expect.any(Number),
      url: expect.stringContaining("/media/"),
    });
    expect(body.nextCursor).toBeNull();
  });

  it("pages by cursor: every row once, and a deep page reads no more rows than the first", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const costs: number[] = [];
    do {
      const res = await call(`/v2/content/list?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: writeHeaders(org),
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      costs.push(d1Cost(res).rowsRead);
      seen.push(...body.contents.map((c: any) => c.contentKey));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([keys.rejected, keys.uploading, ...[...keys.available].reverse()]);
    expect(costs).toHaveLength(3);
    expect(Math.max(...costs)).toBeLessThanOrEqual(costs[0]! + 2);
  });

  it("answers one content by key with its service categories and syndication windows", async () => {
    const key = keys.available[1]!;
    const window = {
      name: "summer",
      start_time: "2031-06-01T00:00:00Z",
      stop_time: "2031-09-01T00:00:00Z",
      geos: ["DEU", "FRA"],
    };
    const patched = await admin(`/admin/videos/${key}`, "PATCH", {
      serviceCategories: ["Sports"],
      syndications: [window],
    });
    expect(patched.res.status, JSON.stringify(patched.body)).toBe(200);
    const { res, body } = await callJson(`/v2/content/list?contentKey=${key}`, {
      headers: writeHeaders(org),
    });
    expect(res.status).toBe(200);
    expect(body.contents).toHaveLength(1);
    expect(body.contents[0]).toMatchObject({
      contentKey: key,
      serviceCategories: ["Sports"],
      syndications: [
        {
          name: "summer",
          startTime: "2031-06-01T00:00:00.000Z",
          stopTime: "2031-09-01T00:00:00.000Z",
          geos: ["DEU", "FRA"],
        },
      ],
    });
    expect(
      (
        await callJson(`/v2/content/list?contentKey=${keys.uploading}`, {
          headers: writeHeaders(org),
        })
      ).body.contents[0],
    ).toMatchObject({ status: "uploading", syndications: [] });
    expect(
      (await callJson("/v2/content/list?contentKey=bad-key!", { headers: writeHeaders(org) })).res
        .status,
    ).toBe(400);
  });

  it("filters by status, words of the title, a tag and a category", async () => {
    const list = async (q: string) =>
      (
        (await callJson(`/v2/content/list?${q}`, { headers: writeHeaders(org) })).body
          .contents as any[]
      ).map((c) => c.contentKey);
    expect(await list("status=uploading")).toEqual([keys.uploading]);
    expect(await list("status=available&limit=1")).toEqual([keys.available[2]]);
    expect(await list("search=harb")).toEqual([...keys.available].reverse());
    expect(await list(`search=${keys.rejected}`)).toEqual([keys.rejected]);
    expect(await list("tag=boats")).toEqual([keys.available[0]]);
    expect(await list("category=News&tag=city")).toEqual([keys.available[2], keys.available[1]]);
    expect(await list("tag=unknown")).toEqual([]);
    // A name most content carries is checked while walking the listing (2 of 3 videos, pages of 1).
    expect(await list("tag=city&limit=1")).toEqual([keys.available[2]]);
    expect(await list("tag=boats&limit=1")).toEqual([keys.available[0]]);
  });

  it("orders by title, duration or publication in either direction, paging every row once on its index", async () => {
    const pages = async (q: string) => {
      const seen: string[] = [];
      const costs: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await call(
          `/v2/content/list?${q}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          { headers: writeHeaders(org) },
        );
        const body = (await res.json()) as any;
        expect(res.status, JSON.stringify(body)).toBe(200);
        costs.push(d1Cost(res).rowsRead);
        seen.push(...body.contents.map((c: any) => c.contentKey));
        cursor = body.nextCursor;
      } while (cursor);
      return { seen, costs };
    };
    const all = [keys.rejected, keys.uploading, ...keys.available];
    // Titles A to Z (case-insensitive): Harbour lights 0, 1, 2, Still uploading, Wrong codec.
    const byTitle = await pages("sort=title");
    expect(byTitle.seen).toEqual([...keys.available, keys.uploading, keys.rejected]);
    expect((await pages("sort=title&order=desc")).seen).toEqual([
      keys.rejected,
      keys.uploading,
      ...[...keys.available].reverse(),
    ]);
    // Published first (newest), then what never was (uploading, rejected: ties by id, newest first).
    expect((await pages("sort=published")).seen).toEqual([
      ...[...keys.available].reverse(),
      keys.rejected,
      keys.uploading,
    ]);
    const byDuration = await pages("sort=duration");
    expect(byDuration.seen.slice(-2).sort()).toEqual([keys.rejected, keys.uploading].sort());
    expect(new Set(byDuration.seen)).toEqual(new Set(all));
    // A deep page reads about what the first does (an index range per page, not a sort of all).
    for (const { costs } of [byTitle, byDuration])
      expect(Math.max(...costs)).toBeLessThanOrEqual(costs[0]! + 2);
    // A cursor belongs to its order.
    const first = (
      await callJson("/v2/content/list?sort=title&limit=1", { headers: writeHeaders(org) })
    ).body.nextCursor;
    const crossed = await callJson(`/v2/content/list?sort=duration&limit=1&cursor=${first}`, {
      headers: writeHeaders(org),
    });
    expect(crossed.res.status).toBe(400);
    expect(crossed.body.message).toMatch(
      /cursor: not a cursor this listing returned for this sort and order/,
    );
  });

  it("pages titles of any script", async () => {
    const other = await createOrg();
    const titles = ["Émile à Paris", "東京の夜", "Zebra", "ärger"];
    for (const title of titles)
      expect(
        (await writeJson(other, "POST", "/v2/content/", { contentSize: 10, title })).res.status,
      ).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { res, body }: { res: Response; body: any } = await callJson(
        `/v2/content/list?sort=title&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: writeHeaders(other) },
      );
      expect(res.status, JSON.stringify(body)).toBe(200);
      seen.push(...body.contents.map((c: any) => c.title));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(4);
    expect(new Set(seen)).toEqual(new Set(titles));
  });

  it("shows each content's lifetime plays", async () => {
    const key = keys.available[0]!;
    await ingest(org, [
      { event: "video_played", contentKey: key, timestamp: `${utcDayAgo(3)}T10:00:00Z` },
      { event: "video_played", contentKey: key },
      { event: "video_played", contentKey: key },
      { event: "video_impression", contentKey: key },
    ]);
    const { body } = await callJson("/v2/content/list?sort=title", { headers: writeHeaders(org) });
    const plays = Object.fromEntries(body.contents.map((c: any) => [c.contentKey, c.plays]));
    expect(plays[key]).toBe(3);
    expect(plays[keys.available[1]!]).toBe(0);
    expect(plays[keys.uploading]).toBe(0);
  });

  it("answers bad parameters with 400 and the {message} shape, and needs write credentials", async () => {
    for (const [q, words] of [
      ["status=published", "status"],
      ["limit=0", "limit"],
      ["limit=abc", "limit"],
      ["cursor=!!!", "cursor"],
      [`cursor=${btoa("2020-01-01T00:00:00.000Z|x")}`, "cursor"],
    ] as const) {
      const { res, body } = await callJson(`/v2/content/list?${q}`, { headers: writeHeaders(org) });
      expect(res.status, q).toBe(400);
      expect(body.message).toContain(words);
    }
    expect(
      (await call("/v2/content/list", { headers: { "X-Service-Sync-Code": org.syncCode } })).status,
    ).toBe(401);
  });

  it("offers the names in use as choices, with their published videos", async () => {
    const { res, body } = await callJson("/v2/organization/labels", { headers: writeHeaders(org) });
    expect(res.status).toBe(200);
    expect(body).toEqual({
      categories: [{ name: "News", videos: 3 }],
      tags: [
        { name: "boats", videos: 1 },
        { name: "city", videos: 2 },
      ],
      events: [],
    });
  });
});

describe("self-service organization", () => {
  it("shows the organization's own record without secrets", async () => {
    const org = await createOrg({ plan: "standard", entitlements: ["ecommerce"] });
    const { res, body } = await callJson("/v2/organization", { headers: writeHeaders(org) });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      organizationKey: org.organizationKey,
      syncCode: org.syncCode,
      apiKey: org.apiKey,
      plan: "standard",
      requestsPerMinute: 100,
      entitlements: ["ecommerce"],
      subOrganizations: [],
    });
    expect(JSON.stringify(body)).not.toContain(org.apiSecret);
    expect(res.headers.get("RateLimit-Limit")).toBe("100");
    expect(Number(res.headers.get("RateLimit-Remaining"))).toBeLessThan(100);
  });

  it("rotates the secret: shown once, the old one refused, other sessions ended, the asking session kept", async () => {
    const org = await createOrg();
    const asking = await signIn(keyAndSecret(org));
    const elsewhere = await signIn(keyAndSecret(org));
    const bad = await withSession(asking, "/v2/organization/credentials/rotate", {
      method: "POST",
      body: { rotate: ["syncCode"] },
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toContain("rotate");
    const { res, body } = await withSession(asking, "/v2/organization/credentials/rotate", {
      method: "POST",
      body: { rotate: ["apiSecret"] },
    });
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({
      rotated: ["apiSecret"],
      credentials: { apiSecret: expect.stringMatching(/^as_/) },
    });
    const old = await callJson("/v2/webhooks", { headers: writeHeaders(org) });
    expect(old.res.status).toBe(401);
    const fresh = await callJson("/v2/webhooks", {
      headers: writeHeaders({ ...org, apiSecret: body.credentials.apiSecret }),
    });
    expect(fresh.res.status).toBe(200);
    expect((await withSession(asking, "/v2/webhooks")).res.status).toBe(200);
    expect((await withSession(elsewhere, "/v2/webhooks")).res.status).toBe(401);
    // The token still works until it is rotated too.
    expect(
      (await call("/v2/webhooks", { headers: { Authorization: `Bearer ${org.apiToken}` } })).status,
    ).toBe(200);
    const token = await writeJson(
      { ...org, apiSecret: body.credentials.apiSecret },
      "POST",
      "/v2/organization/credentials/rotate",
      { rotate: ["apiToken"] },
    );
    expect(token.body.credentials.apiToken).toMatch(/^at_/);
    expect(
      (await call("/v2/webhooks", { headers: { Authorization: `Bearer ${org.apiToken}` } })).status,
    ).toBe(401);
    // An operator rotation ends every session.
    const op = await callJson(`/admin/organizations/${org.organizationKey}/credentials/rotate`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ rotate: ["apiToken"] }),
    });
    expect(op.res.status).toBe(200);
    expect((await withSession(asking, "/v2/webhooks")).res.status).toBe(401);
  });
});

describe("organization totals (the console's charts)", () => {
  it("sums every video's statistics per day, country and device; gated and validated", async () => {
    const org = await createOrg({ entitlements: ["enterprise_player"] });
    const [a, b] = [
      await createContent(org, { title: "A" }),
      await createContent(org, { title: "B" }),
    ];
    const [d2, d1] = [utcDayAgo(2), utcDayAgo(1)];
    const played = (contentKey: string, day: string, deviceType: string, n: number) =>
      Array.from({ length: n }, () => ({
        event: "video_played",
        contentKey,
        timestamp: `${day}T12:00:00Z`,
        deviceType,
      }));
    await ingest(org, [...played(a, d2, "Desktop", 3), ...played(b, d2, "Mobile", 2)], {
      country: "DE",
    });
    await ingest(
      org,
      [
        ...played(a, d1, "Desktop", 4),
        { event: "video_ended", contentKey: b, timestamp: `${d1}T12:00:00Z`, deviceType: "TV" },
      ],
      { country: "FR" },
    );
    const totals = async (by: string, startDate = utcDayAgo(5), endDate = utcDayAgo(0)) =>
      callJson(`/v2/analytics/video/totals?${new URLSearchParams({ startDate, endDate, by })}`, {
        headers: { "X-Service-Sync-Code": org.syncCode },
      });
    const zero = { video_impression: 0, played_30s: 0 };
    const days = await totals("day");
    expect(days.res.status, JSON.stringify(days.body)).toBe(200);
    expect(days.body).toEqual({
      by: "day",
      startDate: utcDayAgo(5),
      endDate: utcDayAgo(0),
      data: [
        { key: d2, video_played: 5, video_ended: 0, ...zero },
        { key: d1, video_played: 4, video_ended: 1, ...zero },
      ],
    });
    expect((await totals("country")).body.data.map((r: any) => [r.key, r.video_played])).toEqual([
      ["DEU", 5],
      ["FRA", 4],
    ]);
    expect(
      (await totals("device")).body.data.map((r: any) => [r.key, r.video_played, r.video_ended]),
    ).toEqual([
      ["Desktop", 7, 0],
      ["Mobile", 2, 0],
      ["TV", 0, 1],
    ]);
    expect((await totals("day", d1, d1)).body.data.map((r: any) => r.key)).toEqual([d1]);
    const bad = await totals("week");
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toContain("by");
    const backwards = await totals("day", d1, d2);
    expect(backwards.res.status).toBe(400);
    expect(backwards.body.error).toContain("endDate");
    const other = await createOrg();
    const gated = await callJson(
      `/v2/analytics/video/totals?startDate=${d2}&endDate=${d1}&by=day`,
      { headers: { "X-Service-Sync-Code": other.syncCode } },
    );
    expect(gated.res.status).toBe(403);
    expect(gated.body.error).toContain("enterprise_player");
  });
});
