// Authentication, E1 validation, error shapes, rate limits, CORS, Server-Timing and logs.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  admin,
  call,
  callJson,
  callSettled,
  createOrg,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

let org: TestOrg;

beforeAll(async () => {
  org = await createOrg({ entitlements: ["mmi"] });
});

describe("write credentials (E1–E5)", () => {
  const body = JSON.stringify({ contentSize: 100 });

  it("answers 401 {message} for missing or wrong credentials", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { "X-Service-Sync-Code": org.syncCode, "X-Service-Api-Key": org.apiKey },
      { ...writeHeaders(org), "X-Service-Api-Secret": "wrong" },
      { ...writeHeaders(org), "X-Service-Api-Key": "ak_unknown" },
      { ...writeHeaders(org), "X-Service-Sync-Code": "sc_other" },
      { Authorization: "Bearer at_not-a-token" },
      { Authorization: `Bearer ${org.apiToken}`, "X-Service-Sync-Code": "sc_other" },
    ];
    for (const headers of attempts) {
      for (const [method, path] of [
        ["POST", "/v2/content/"],
        ["POST", "/v2/content/complete"],
        ["GET", "/v2/content?contentKey=abc"],
        ["PUT", "/v2/content"],
        ["DELETE", "/v2/content?contentKey=abc"],
      ]) {
        const { res, body: err } = await callJson(path!, {
          method,
          headers: { ...headers, "Content-Type": "application/json" },
          ...(method === "POST" || method === "PUT" ? { body } : {}),
        });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(Object.keys(err)).toEqual(["message"]);
      }
    }
  });

  it("accepts the API token as a bearer token", async () => {
    const { res, body: created } = await callJson("/v2/content/", {
      method: "POST",
      headers: { Authorization: `Bearer ${org.apiToken}`, "Content-Type": "application/json" },
      body,
    });
    expect(res.status).toBe(200);
    expect(created.contentUploadData.signedUrls).toHaveLength(1);
  });

  it("scopes content to a sub-organization with X-Service-MMI-Key", async () => {
    const sub = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Sub" },
    );
    const mmi = { "X-Service-MMI-Key": sub.body.mmiKey as string };
    const created = await writeJson(
      org,
      "POST",
      "/v2/content/",
      { contentSize: 10, title: "sub" },
      mmi,
    );
    expect(created.res.status).toBe(200);
    const key = created.body.contentKey;
    const row = await env.DB.prepare(
      "select s.mmi_key from contents c join sub_organizations s on s.id = c.sub_organization_id where c.content_key = ?",
    )
      .bind(key)
      .first("mmi_key");
    expect(row).toBe(sub.body.mmiKey);
    // The parent organization sees it; another sub-organization does not.
    expect((await writeJson(org, "GET", `/v2/content?contentKey=${key}`)).res.status).toBe(200);
    const sibling = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Sibling" },
    );
    const hidden = await writeJson(org, "GET", `/v2/content?contentKey=${key}`, undefined, {
      "X-Service-MMI-Key": sibling.body.mmiKey,
    });
    expect(hidden.res.status).toBe(404);
    const unknown = await writeJson(org, "GET", `/v2/content?contentKey=${key}`, undefined, {
      "X-Service-MMI-Key": "nope",
    });
    expect(unknown.res.status).toBe(401);
  });

  it("answers 403 for X-Service-MMI-Key without the mmi entitlement", async () => {
    const plain = await createOrg();
    const sub = await admin(
      `/admin/organizations/${plain.organizationKey}/sub-organizations`,
      "POST",
      { name: "S" },
    );
    const res = await writeJson(plain, "GET", "/v2/content?contentKey=abc", undefined, {
      "X-Service-MMI-Key": sub.body.mmiKey,
    });
    expect(res.res.status).toBe(403);
    expect(res.body.message).toBe("X-Service-MMI-Key requires the mmi entitlement");
  });

  it("keeps content of one organization invisible to another", async () => {
    const created = await writeJson(org, "POST", "/v2/content/", { contentSize: 10 });
    const intruder = await createOrg();
    const key = created.body.contentKey;
    expect((await writeJson(intruder, "GET", `/v2/content?contentKey=${key}`)).res.status).toBe(
      404,
    );
    const put = await writeJson(intruder, "PUT", "/v2/content", {
      contentKey: key,
      title: "x",
      description: "",
      thumbnailUrl: null,
      categories: [],
      tags: [],
      events: [],
      customFields: [],
    });
    expect(put.res.status).toBe(404);
    expect((await writeJson(intruder, "DELETE", `/v2/content?contentKey=${key}`)).res.status).toBe(
      404,
    );
    // And the key stays taken globally: R2 objects are named by it.
    const taken = await writeJson(intruder, "POST", "/v2/content/", {
      contentSize: 10,
      contentKey: key,
    });
    expect(taken.res.status).toBe(400);
  });
});

describe("E1 validation", () => {
  const cases: [string, unknown, RegExp | string][] = [
    [
      "contentKey too long",
      { contentSize: 1, contentKey: "abcdefghi" },
      "contentKey: must be 1 to 8 letters or digits",
    ],
    [
      "contentKey with a dash",
      { contentSize: 1, contentKey: "ab-c" },
      "contentKey: must be 1 to 8 letters or digits",
    ],
    ["contentSize missing", {}, "contentSize: is required"],
    ["contentSize zero", { contentSize: 0 }, "contentSize: must be a positive integer"],
    ["contentSize fractional", { contentSize: 1.5 }, "contentSize: must be an integer"],
    ["contentSize a string", { contentSize: "10" }, "contentSize: must be a number"],
    ["suffix .avi", { contentSize: 1, suffix: ".avi" }, "suffix: must be .mp4 or .mov"],
    [
      "custom field with two keys",
      { contentSize: 1, customFields: [{ a: 1, b: 2 }] },
      "customFields.0: each custom field must be an object with exactly one key",
    ],
    [
      "custom field with an object value",
      { contentSize: 1, customFields: [{ a: { b: 1 } }] },
      /^customFields\.0\.a: custom field values must be a string or a number/,
    ],
    ["unknown field", { contentSize: 1, colour: "red" }, /Unrecognized key.*colour/],
    ["tags not an array", { contentSize: 1, tags: "a" }, "tags: must be an array of strings"],
    [
      "title too long",
      { contentSize: 1, title: "x".repeat(501) },
      "title: must be at most 500 characters",
    ],
    [
      "description too long",
      { contentSize: 1, description: "x".repeat(5001) },
      "description: must be at most 5000 characters",
    ],
    [
      "thumbnailUrl not a URL",
      { contentSize: 1, thumbnailUrl: "not a url" },
      "thumbnailUrl: must be an http(s) URL",
    ],
    [
      "too many parts",
      { contentSize: 5 * 1024 * 1024 * 10_001 },
      /would need 10001 parts of 5242880 bytes; at most 10000 parts are allowed/,
    ],
  ];
  for (const [name, body, message] of cases) {
    it(`rejects ${name}`, async () => {
      const { res, body: err } = await writeJson(org, "POST", "/v2/content/", body);
      expect(res.status).toBe(400);
      if (typeof message === "string") expect(err).toEqual({ message });
      else expect(err.message).toMatch(message);
    });
  }

  it("rejects invalid JSON", async () => {
    const { res, body } = await writeJson(org, "POST", "/v2/content/", "{not json");
    expect(res.status).toBe(400);
    expect(body).toEqual({ message: "invalid JSON in the request body" });
  });

  it("rejects a content key already in use", async () => {
    const first = await writeJson(org, "POST", "/v2/content/", {
      contentSize: 1,
      contentKey: "dupKey1",
    });
    expect(first.res.status).toBe(200);
    const second = await writeJson(org, "POST", "/v2/content/", {
      contentSize: 1,
      contentKey: "dupKey1",
    });
    expect(second.res.status).toBe(400);
    expect(second.body).toEqual({ message: "contentKey: dupKey1 is already in use" });
  });

  it("creates new names once per organization, case-sensitively", async () => {
    await writeJson(org, "POST", "/v2/content/", {
      contentSize: 1,
      categories: ["Music", "music"],
      tags: ["Music"],
    });
    await writeJson(org, "POST", "/v2/content/", { contentSize: 1, categories: ["Music"] });
    const rows = await env.DB.prepare(
      "select kind, name from labels where organization_id = (select id from organizations where organization_key = ?) and name in ('Music','music') order by kind, name",
    )
      .bind(org.organizationKey)
      .all();
    expect(rows.results).toEqual([
      { kind: "category", name: "Music" },
      { kind: "category", name: "music" },
      { kind: "tag", name: "Music" },
    ]);
  });
});

describe("rate limits", () => {
  // Windows are fixed UTC minutes of the worker's Date.now(). The worker runs in this test's
  // isolate, so fake timers (Date only; setTimeout stays real) set its clock too: each test
  // picks its instant in a minute instead of waiting for one.
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  /** Freezes the clock of the test and the worker at `ms`. */
  const clockAt = (ms: number) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ms);
  };
  /** Start of a UTC minute well away from the real one (no other test's window). */
  const someMinute = (n: number) => (Math.floor(Date.now() / 60_000) + 1000 * n) * 60_000;
  /** A cheap request with write credentials (E3 of a key that does not exist: 404). */
  const probe = (o: TestOrg) => call("/v2/content?contentKey=none", { headers: writeHeaders(o) });
  /** The cheapest counted request with the sync code alone (E7 without its dates: 400 from validation). */
  const publicProbe = (o: TestOrg) =>
    callSettled("/v2/analytics/video", { headers: { "X-Service-Sync-Code": o.syncCode } });
  const orgId = async (o: TestOrg) =>
    (await env.DB.prepare("select id from organizations where organization_key = ?")
      .bind(o.organizationKey)
      .first<number>("id"))!;
  /**
   * `n` counted requests, `batch` at a time: the cheapest there is, E7 without its dates (read
   * credentials, counted, then 400 from validation: BURST_STATUS). They go to the worker's
   * fetch handler directly (callSettled): in this pool every SELF.fetch gets slower the more a
   * test file has made (cloudflare/workers-sdk#15446), so a thousand of them would take minutes.
   */
  async function burst(o: TestOrg, n: number, batch = 10): Promise<Response[]> {
    // One log line per request is a round trip to the test runner: keep the burst quiet.
    vi.spyOn(console, "log").mockImplementation(() => {});
    const out: Response[] = [];
    for (let i = 0; i < n; i += batch) {
      const size = Math.min(batch, n - i);
      out.push(
        ...(await Promise.all(
          Array.from({ length: size }, () =>
            callSettled("/v2/analytics/video", { headers: { "X-Service-Sync-Code": o.syncCode } }),
          ),
        )),
      );
    }
    return out;
  }
  const BURST_STATUS = 400;

  it("the worker's clock follows the test's fake clock", async () => {
    // The premise of the tests below: RateLimit-Reset is computed from the worker's Date.now().
    const minute = someMinute(1);
    clockAt(minute + 7_000);
    expect((await probe(org)).headers.get("RateLimit-Reset")).toBe("53");
    clockAt(minute + 59_000);
    expect((await probe(org)).headers.get("RateLimit-Reset")).toBe("1");
  });

  it("answers 429 after the plan's limit with Retry-After and RateLimit headers", async () => {
    // Standard plan: 100 requests with the sync code, then 429 until the minute ends (30 s later here).
    const standard = await createOrg({ plan: "standard" });
    const minute = someMinute(2);
    clockAt(minute + 30_000); // 30 s left in the window
    const accepted = await burst(standard, 100, 1); // one at a time: Remaining counts down
    for (const [index, res] of accepted.entries()) {
      const i = index + 1;
      expect(res.status).toBe(BURST_STATUS);
      expect(res.headers.get("RateLimit-Limit")).toBe("100");
      expect(res.headers.get("RateLimit-Remaining")).toBe(String(100 - i));
      expect(res.headers.get("RateLimit-Reset")).toBe("30");
    }
    const { res, body } = await callJson("/v2/analytics/video", {
      headers: { "X-Service-Sync-Code": standard.syncCode },
    });
    expect(res.status).toBe(429);
    expect(body).toEqual({
      status: "KO",
      error:
        "rate limit exceeded: 100 requests per minute for this organization's sync code (public credentials)",
    });
    expect(res.headers.get("Retry-After")).toBe("30");
    expect(res.headers.get("RateLimit-Limit")).toBe("100");
    expect(res.headers.get("RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("RateLimit-Reset")).toBe("30");
    // The count reached KV as this isolate's shard of that minute and class, in the key's metadata.
    const shards = await env.RATE_LIMITS.list<{ count: number }>({
      prefix: `rl:${await orgId(standard)}:public:${minute / 60_000}:`,
    });
    expect(shards.keys).toHaveLength(1);
    expect(shards.keys[0]!.metadata!.count).toBeGreaterThan(0);
    // The organization's write credentials have a budget of their own, whole.
    const own = await probe(standard);
    expect(own.status).toBe(404);
    expect(own.headers.get("RateLimit-Remaining")).toBe("99");
    // Another organization is unaffected.
    expect((await probe(org)).status).toBe(404);
  });

  it("counts write credentials apart: a spent write budget leaves the sync code's reads alone", async () => {
    const standard = await createOrg({ plan: "standard" });
    clockAt(someMinute(6) + 5_000);
    vi.spyOn(console, "log").mockImplementation(() => {});
    for (let i = 0; i < 100; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () =>
          callSettled("/v2/content?contentKey=none", { headers: writeHeaders(standard) }),
        ),
      );
      expect(batch.map((r) => r.status)).toEqual(Array(20).fill(404));
    }
    const refused = await callJson("/v2/content?contentKey=none", {
      headers: writeHeaders(standard),
    });
    expect(refused.res.status).toBe(429);
    expect(refused.body.message).toBe(
      "rate limit exceeded: 100 requests per minute for this organization's write credentials",
    );
    // The console session and the API token are write credentials too: the same budget.
    expect(
      (
        await call("/v2/content?contentKey=none", {
          headers: { Authorization: `Bearer ${standard.apiToken}` },
        })
      ).status,
    ).toBe(429);
    const read = await publicProbe(standard);
    expect(read.status).toBe(BURST_STATUS);
    expect(read.headers.get("RateLimit-Remaining")).toBe("99");
  });

  it("does not count reads answered from the edge cache (no database work), and says where the budget stands", async () => {
    const standard = await createOrg({ plan: "standard" });
    clockAt(someMinute(7) + 5_000);
    vi.spyOn(console, "log").mockImplementation(() => {});
    const read = () =>
      callSettled("/v2/videos/?pageSize=1", {
        headers: { "X-Service-Sync-Code": standard.syncCode },
      });
    const first = await read();
    expect(first.headers.get("X-Edge-Cache")).toBe("miss");
    expect(first.headers.get("RateLimit-Remaining")).toBe("99");
    // 150 more reads of the same page: answered from the cache, more than the plan's 100, none refused.
    for (let i = 0; i < 150; i += 25) {
      const batch = await Promise.all(Array.from({ length: 25 }, read));
      expect(batch.map((r) => r.status)).toEqual(Array(25).fill(200));
      expect(batch.map((r) => r.headers.get("X-Edge-Cache"))).toEqual(Array(25).fill("hit"));
      expect(batch.map((r) => r.headers.get("RateLimit-Remaining"))).toEqual(Array(25).fill("99"));
    }
    // Computing afresh counts again (another page is a miss).
    const other = await callSettled("/v2/videos/?pageSize=2", {
      headers: { "X-Service-Sync-Code": standard.syncCode },
    });
    expect(other.headers.get("X-Edge-Cache")).toBe("miss");
    expect(other.headers.get("RateLimit-Remaining")).toBe("98");
  });

  it("starts a fresh count when the minute rolls over", async () => {
    // Windows are fixed UTC minutes: exhausted at the very end of M, whole again at M+1.
    const standard = await createOrg({ plan: "standard" });
    const minute = someMinute(3);
    clockAt(minute + 59_500); // half a second before the end of minute M
    const inM = await burst(standard, 100);
    expect(inM.map((r) => r.status)).toEqual(Array(100).fill(BURST_STATUS));
    expect(
      inM.map((r) => Number(r.headers.get("RateLimit-Remaining"))).sort((a, b) => a - b),
    ).toEqual([...Array(100).keys()]);
    const over = await burst(standard, 3);
    for (const res of over) {
      expect(res.status).toBe(429);
      expect(res.headers.get("Retry-After")).toBe("1");
      expect(res.headers.get("RateLimit-Limit")).toBe("100");
      expect(res.headers.get("RateLimit-Remaining")).toBe("0");
      expect(res.headers.get("RateLimit-Reset")).toBe("1");
    }
    // M+1: the organization has its whole allowance again.
    clockAt(minute + 60_000);
    const next = await publicProbe(standard);
    expect(next.status).toBe(BURST_STATUS);
    expect(next.headers.get("RateLimit-Remaining")).toBe("99");
    expect(next.headers.get("RateLimit-Reset")).toBe("60");
    const rest = await burst(standard, 99);
    expect(rest.every((r) => r.status === BURST_STATUS)).toBe(true);
    expect((await publicProbe(standard)).status).toBe(429);
  });

  it("allows an enterprise organization 1000 requests a minute", async () => {
    // The plan's limit, not the standard one: the 1000th request passes, the 1001st does not.
    const enterprise = await createOrg({ plan: "enterprise" });
    clockAt(someMinute(4) + 1_000);
    const accepted = await burst(enterprise, 1000);
    expect(accepted.filter((r) => r.status !== BURST_STATUS).map((r) => r.status)).toEqual([]);
    expect(accepted[0]!.headers.get("RateLimit-Limit")).toBe("1000");
    expect(Math.min(...accepted.map((r) => Number(r.headers.get("RateLimit-Remaining"))))).toBe(0);
    const over = await publicProbe(enterprise);
    expect(over.status).toBe(429);
    expect(over.headers.get("Retry-After")).toBe("59");
    expect(over.headers.get("RateLimit-Limit")).toBe("1000");
    expect(over.headers.get("RateLimit-Remaining")).toBe("0");
  });

  it("counts other isolates' shards towards the limit", async () => {
    const standard = await createOrg({ plan: "standard" });
    const minute = someMinute(5);
    clockAt(minute + 10_000);
    // Another isolate already accepted 100 requests this minute.
    await env.RATE_LIMITS.put(
      `rl:${await orgId(standard)}:write:${minute / 60_000}:other-isolate`,
      "",
      {
        expirationTtl: 120,
        metadata: { count: 100 },
      },
    );
    // The first request is allowed (this isolate has not synced yet); its sync, after the
    // response, reads the other shard, so the next request is refused.
    expect(
      (await callSettled("/v2/content?contentKey=none", { headers: writeHeaders(standard) }))
        .status,
    ).toBe(404);
    const refused = await probe(standard);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
  });
});

describe("cross-cutting", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reports D1 rows read and time in Server-Timing", async () => {
    const res = await call("/v2/content?contentKey=none", { headers: writeHeaders(org) });
    const timing = res.headers.get("Server-Timing")!;
    const m = timing.match(
      /d1;dur=([\d.]+);desc="rows_read=(\d+) rows_written=(\d+) queries=(\d+)"/,
    );
    expect(m).not.toBeNull();
    // The content lookup at least (the credentials may come from the isolate's cache); an
    // unknown key reads no row.
    expect(Number(m![4])).toBeGreaterThanOrEqual(1);
  });

  it("logs one JSON line per request without secrets", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    await call("/v2/content?contentKey=none", { headers: writeHeaders(org) });
    await call("/v2/content?contentKey=none", {
      headers: { Authorization: `Bearer ${org.apiToken}` },
    });
    const requestLines = lines.filter((l) => l.startsWith('{"method"'));
    expect(requestLines).toHaveLength(2);
    const entry = JSON.parse(requestLines[0]!);
    expect(entry).toMatchObject({
      method: "GET",
      path: "/v2/content",
      status: 404,
      organization: org.organizationKey,
    });
    expect(typeof entry.duration_ms).toBe("number");
    for (const line of lines) {
      expect(line).not.toContain(org.apiSecret);
      expect(line).not.toContain(org.apiToken);
      expect(line).not.toContain(org.apiKey);
    }
  });

  it("answers CORS preflight for uploads and exposes ETag", async () => {
    const res = await call("/v2/uploads/part?key=a", {
      method: "OPTIONS",
      headers: { Origin: "https://uploader.example", "Access-Control-Request-Method": "PUT" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("PUT");
    const put = await call("/v2/uploads/part?key=a", {
      method: "PUT",
      headers: { Origin: "https://uploader.example" },
    });
    expect(put.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
  });

  it("answers unknown routes with a JSON 404 and serves the docs", async () => {
    const { res, body } = await callJson("/nowhere");
    expect(res.status).toBe(404);
    expect(body).toEqual({ status: "KO", error: "no route for GET /nowhere" });
    // The reference loads only the worker's own assets (no CDN), and they point at /openapi.json.
    const docs = await call("/docs");
    expect(docs.status).toBe(200);
    const page = await docs.text();
    expect(page).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(page).not.toMatch(/https?:\/\//);
    expect(await (await call("/docs/init.js")).text()).toContain('url: "/openapi.json"');
    expect((await call("/docs/swagger-ui-bundle.js")).status).toBe(200);
  });

  // Was test/smoke.test.ts: a file of its own costs ~2 s of pool start-up for a 50 ms test.
  it("answers GET /healthz without touching D1", async () => {
    const res = await call("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Server-Timing")).toMatch(/queries=0/);
  });

  it("serves the OpenAPI document", async () => {
    const res = await call("http://example.com/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain("/v2/content");
    expect(res.headers.get("Server-Timing")).toMatch(/d1;dur=/);
  });
});
