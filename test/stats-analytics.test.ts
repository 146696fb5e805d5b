// E7 GET /v2/analytics/{type}: summary, detailed and daily, fields, paging, types, E6 filters, auth.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { createStatsDb } from "../src/db/stats/client";
import { ROLLUPS } from "../src/db/stats/rollups";
import { selectedKeysUpTo } from "../src/domain/stats/analytics";
import { createContent, ingest, utcDayAgo } from "./fixtures/stats";
import { admin, callJson, createOrg, statsD1, type TestOrg } from "./helpers";

let org: TestOrg;
let red: string;
let blue: string;
let live: string;
const D2 = utcDayAgo(2);
const D1 = utcDayAgo(1);

function analytics(
  type: string,
  params: Record<string, string | number>,
  who: TestOrg = org,
  headers: Record<string, string> = {},
) {
  const query = new URLSearchParams(
    Object.entries({ startDate: D2, endDate: D1, ...params }).map(([k, v]): [string, string] => [
      k,
      String(v),
    ]),
  );
  return callJson(`/v2/analytics/${type}?${query}`, {
    headers: { "X-Service-Sync-Code": who.syncCode, ...headers },
  });
}

/** E6 lists only published videos: mark test content available as E2 would. */
async function publish(key: string) {
  await env.DB.prepare(
    "update contents set status = 'available', published_at = ? where content_key = ?",
  )
    .bind(new Date().toISOString(), key)
    .run();
}

beforeAll(async () => {
  org = await createOrg({ entitlements: ["enterprise_player", "viewer_analytics"] });
  red = await createContent(org, { tags: ["red"], title: "Late goal at the harbour" });
  blue = await createContent(org, { tags: ["blue"], title: "Harbour lights" });
  live = await createContent(org, { tags: ["red"], title: "Goal line live" });
  for (const k of [red, blue, live]) await publish(k);
  expect((await admin(`/admin/videos/${live}`, "PATCH", { isLive: true })).res.status).toBe(200);
  const ev = (event: string, contentKey: string, day: string, n: number, extra: object = {}) =>
    Array.from({ length: n }, () => ({
      event,
      contentKey,
      timestamp: `${day}T08:00:00Z`,
      ...extra,
    }));
  await ingest(org, [
    ...ev("played_1s", red, D2, 4),
    ...ev("played_1s", red, D1, 1),
    ...ev("played_30s", red, D1, 2),
    ...ev("played_1s", blue, D1, 3),
    ...ev("video_played", live, D1, 6),
    ...ev("ad_impression", blue, D2, 2),
    ...ev("video_played", blue, D2, 1, { fingerprint: "f", consent: true }),
  ]);
});

describe("E7 analytics", () => {
  it("summary: totals per contentKey over the range, with the chosen fields", async () => {
    const { res, body } = await analytics("video", { summary: 1, fields: "played_1,played_30" });
    expect(res.status).toBe(200);
    expect(body.message).toBe("ok");
    expect(body.page).toBe(1);
    expect(body.pageSize).toBe(100);
    const expected = [
      { contentKey: red, startDate: D2, endDate: D1, played_1s: 5, played_30s: 2 },
      { contentKey: blue, startDate: D2, endDate: D1, played_1s: 3, played_30s: 0 },
      { contentKey: live, startDate: D2, endDate: D1, played_1s: 0, played_30s: 0 },
    ].sort((x, y) => (x.contentKey < y.contentKey ? -1 : 1));
    // Every content key with video statistics in the range.
    expect(body.data).toEqual(expected);
    expect(body.count).toBe(3);
  });

  it("detailed: one row per UTC day and contentKey", async () => {
    const { body } = await analytics("video", {
      detailed: "",
      fields: "played_1s",
      contentKey: red,
    });
    expect(body.data).toEqual([
      { date: `${D2}T23:59:59.000Z`, contentKey: red, played_1s: 4 },
      { date: `${D1}T23:59:59.000Z`, contentKey: red, played_1s: 1 },
    ]);
    const all = await analytics("video", { detailed: 1 });
    // red on both days, blue on both days (a play on D2), live on D1.
    expect(all.body.count).toBe(5);
    expect(Object.keys(all.body.data[0]).slice(0, 4)).toEqual([
      "date",
      "contentKey",
      "thumbnail_view",
      "video_impression",
    ]);
  });

  it("pages like E6, with hasMore, and counts on the last page or when asked", async () => {
    const first = await analytics("video", { detailed: 1, fields: "played_1s", pageSize: 3 });
    const second = await analytics("video", {
      detailed: 1,
      fields: "played_1s",
      pageSize: 3,
      page: 2,
    });
    expect(first.body.data).toHaveLength(3);
    // A page with more after it does not count every row of the range unless asked to.
    expect(first.body).toMatchObject({ hasMore: true, page: 1, pageSize: 3 });
    expect(first.body).not.toHaveProperty("count");
    expect(
      (await analytics("video", { detailed: 1, fields: "played_1s", pageSize: 3, includeCount: 1 }))
        .body,
    ).toMatchObject({ count: 5, hasMore: true });
    expect(second.body).toMatchObject({ count: 5, hasMore: false, page: 2, pageSize: 3 });
    expect(second.body.data).toHaveLength(2);
    expect(
      new Set([...first.body.data, ...second.body.data].map((r: any) => r.date + r.contentKey))
        .size,
    ).toBe(5);
    const past = (await analytics("video", { detailed: 1, page: 9 })).body;
    expect(past).toMatchObject({ data: [], hasMore: false });
    expect(past).not.toHaveProperty("count");
    // summary the same way: 3 keys in pages of 2.
    const keys = [red, blue, live].sort();
    const s1 = (await analytics("video", { summary: 1, fields: "played_1s", pageSize: 2 })).body;
    const s2 = (await analytics("video", { summary: 1, fields: "played_1s", pageSize: 2, page: 2 }))
      .body;
    expect(s1).toMatchObject({
      hasMore: true,
      data: keys.slice(0, 2).map((contentKey) => ({ contentKey })),
    });
    expect(s1).not.toHaveProperty("count");
    expect(s2).toMatchObject({ count: 3, hasMore: false, data: [{ contentKey: keys[2] }] });
    expect(
      (await analytics("video", { summary: 1, pageSize: 2, page: 2, includeCount: 1 })).body,
    ).toMatchObject({ count: 3, hasMore: false });
    expect((await analytics("video", { summary: 1, includeCount: "yes" })).body).toEqual({
      status: "KO",
      error: "includeCount: must be 0 or 1",
    });
    for (const [params, error] of [
      [{ pageSize: 1001 }, "pageSize: must be at most 1000"],
      [{ page: 0 }, "page: must be at least 1"],
    ] as const) {
      const { res, body } = await analytics("video", { summary: 1, ...params });
      expect(res.status).toBe(400);
      expect(body).toEqual({ status: "KO", error });
    }
  });

  it("summary with E6 filters: pages walk the keys until full, and count once every key was seen", async () => {
    const red1 = (
      await analytics("video", { summary: 1, fields: "played_1s", tags: "red", pageSize: 1 })
    ).body;
    const red2 = (
      await analytics("video", {
        summary: 1,
        fields: "played_1s",
        tags: "red",
        pageSize: 1,
        page: 2,
      })
    ).body;
    // The first stretch of the walk (1,000 keys) saw all three: the count is known on page 1.
    expect([red1.count, red1.hasMore, red2.count, red2.hasMore]).toEqual([2, true, 2, false]);
    expect([...red1.data, ...red2.data].map((r: any) => r.contentKey)).toEqual([red, live].sort());
    // detailed with the filter (every selected key read, rows merged by day): red on both days, live on D1.
    const d1 = (
      await analytics("video", { detailed: 1, fields: "played_1s", tags: "red", pageSize: 2 })
    ).body;
    const d2 = (
      await analytics("video", {
        detailed: 1,
        fields: "played_1s",
        tags: "red",
        pageSize: 2,
        page: 2,
      })
    ).body;
    expect(d1).toMatchObject({ hasMore: true });
    expect(d1).not.toHaveProperty("count");
    expect(
      (
        await analytics("video", {
          detailed: 1,
          fields: "played_1s",
          tags: "red",
          pageSize: 2,
          includeCount: 1,
        })
      ).body,
    ).toMatchObject({ count: 3, hasMore: true });
    expect(d2).toMatchObject({ count: 3, hasMore: false });
    expect(
      [...d1.data, ...d2.data].map((r: any) => `${r.date.slice(0, 10)} ${r.contentKey}`),
    ).toEqual([`${D2} ${red}`, ...[red, live].sort().map((k) => `${D1} ${k}`)]);
    // In stretches of 1, then 4: the walk goes on after the last key it saw and stops once it has
    // as many as wanted, or at the end (complete) — the same keys the whole reading selects.
    const orgId = (await env.DB.prepare("select id from organizations where organization_key = ?")
      .bind(org.organizationKey)
      .first("id")) as number;
    const stats = createStatsDb(await statsD1(org));
    const scope = { organizationId: orgId, start: D2, end: D1 };
    const liveOnly = { liveOf: orgId };
    const sorted = [red, blue, live].sort();
    const walk = (wanted: number, first: number, longest: number) =>
      selectedKeysUpTo(createDb(env.DB), stats, ROLLUPS.video.totals, scope, liveOnly, wanted, {
        first,
        longest,
      });
    for (const wanted of [1, 2, 5]) {
      const walked = await walk(wanted, 1, 4);
      expect(walked.keys, `wanted ${wanted}`).toEqual([live]);
      // The first stretch is the first key: if that is the live one and one is wanted, the walk
      // stops there with keys left (incomplete); otherwise the second stretch (4) reaches the end.
      expect(walked.complete, `wanted ${wanted}`).toBe(!(wanted === 1 && sorted[0] === live));
    }
    // A sparse selection walks on, one key per stretch here, to the end.
    expect(await walk(2, 1, 1)).toEqual({ keys: [live], complete: true });
    expect(await walk(1, 2, 2)).toEqual({ keys: [live], complete: sorted.indexOf(live) >= 2 });
  });

  it("daily: one row per UTC day of the range for charts, zeros included, narrowed like summary", async () => {
    const D3 = utcDayAgo(3);
    const { res, body } = await analytics("video", {
      daily: 1,
      fields: "played_1s,video_played",
      startDate: D3,
    });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ count: 3, page: 1, pageSize: 100 });
    expect(body.data).toEqual([
      { date: `${D3}T23:59:59.000Z`, played_1s: 0, video_played: 0 },
      { date: `${D2}T23:59:59.000Z`, played_1s: 4, video_played: 1 },
      { date: `${D1}T23:59:59.000Z`, played_1s: 4, video_played: 6 },
    ]);
    // One video, or the videos of an E6 filter, instead of the whole organization.
    expect(
      (await analytics("video", { daily: 1, fields: "played_1s", contentKey: red })).body.data.map(
        (r: any) => r.played_1s,
      ),
    ).toEqual([4, 1]);
    expect(
      (await analytics("video", { daily: 1, fields: "video_played", tags: "red" })).body.data.map(
        (r: any) => r.video_played,
      ),
    ).toEqual([0, 6]);
    expect(
      (await analytics("livestream", { daily: 1, fields: "video_played" })).body.data.map(
        (r: any) => r.video_played,
      ),
    ).toEqual([0, 6]);
    // Paged like the other modes.
    const second = await analytics("video", {
      daily: 1,
      fields: "played_1s",
      startDate: D3,
      pageSize: 2,
      page: 2,
    });
    expect(second.body).toMatchObject({
      count: 3,
      data: [{ date: `${D1}T23:59:59.000Z`, played_1s: 4 }],
    });
  });

  it("livestream: video counters of live videos only", async () => {
    const { body } = await analytics("livestream", { summary: 1, fields: "video_played" });
    expect(body.data).toEqual([{ contentKey: live, startDate: D2, endDate: D1, video_played: 6 }]);
  });

  it("ads, viewers and ecommerce use their own counters", async () => {
    expect((await analytics("ads", { summary: 1, fields: "ad_impression" })).body.data).toEqual([
      { contentKey: blue, startDate: D2, endDate: D1, ad_impression: 2 },
    ]);
    expect((await analytics("viewers", { summary: 1, fields: "video_played" })).body.data).toEqual([
      { contentKey: blue, startDate: D2, endDate: D1, video_played: 1 },
    ]);
    const bad = await analytics("ads", { summary: 1, fields: "played_1" });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toMatch(/^fields: unknown metric "played_1" for type ads/);
  });

  it("narrows the videos with the E6 filters", async () => {
    const { res, body } = await analytics("video", {
      summary: 1,
      fields: "played_1s,video_played",
      tags: "red",
    });
    expect(res.status).toBe(200);
    expect(body.data.map((r: any) => r.contentKey).sort()).toEqual([red, live].sort());
    const redLive = await analytics("livestream", {
      summary: 1,
      fields: "video_played",
      tags: "blue",
    });
    expect(redLive.body.data).toEqual([]);
    // Gated E6 parameters keep their gates.
    const gated = await analytics("video", { summary: 1, events: "x" });
    expect(gated.res.status).toBe(403);
  });

  it("narrows the videos with searchString: words and prefixes of title, content keys, every group", async () => {
    const keysOf = async (searchString: string, mode: "summary" | "detailed" = "summary") => {
      const { res, body } = await analytics("video", {
        [mode]: 1,
        fields: "played_1s",
        searchString,
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return [...new Set<string>(body.data.map((r: any) => r.contentKey))].sort();
    };
    expect(await keysOf("goal")).toEqual([red, live].sort());
    expect(await keysOf("harb")).toEqual([red, blue].sort());
    expect(await keysOf("goal,harbour")).toEqual([red]);
    expect(await keysOf(`${blue}|line`)).toEqual([blue, live].sort());
    expect(await keysOf("nowhere")).toEqual([]);
    expect(await keysOf("harbour", "detailed")).toEqual([red, blue].sort());
    // daily: the matching videos' totals per day (red's plays, live's video_played).
    const daily = await analytics("video", {
      daily: 1,
      fields: "played_1s,video_played",
      searchString: "goal",
    });
    expect(
      daily.body.data.map((r: any) => [r.date.slice(0, 10), r.played_1s, r.video_played]),
    ).toEqual([
      [D2, 4, 0],
      [D1, 1, 6],
    ]);
  });

  it("answers 400 for summary/detailed, fields and dates, 401 and 403 as documented", async () => {
    const cases: [string, Record<string, string | number>, string][] = [
      ["video", {}, "summary, detailed, daily: give exactly one of them"],
      ["video", { summary: 1, detailed: 1 }, "summary, detailed, daily: give exactly one of them"],
      ["video", { summary: 1, daily: 1 }, "summary, detailed, daily: give exactly one of them"],
      ["video", { summary: 1, fields: "plays" }, 'fields: unknown metric "plays" for type video'],
      [
        "video",
        { summary: 1, startDate: D1, endDate: D2 },
        "endDate: must not be before startDate",
      ],
      [
        "video",
        { summary: 1, startDate: "2024-01-01", endDate: "2025-06-01" },
        "endDate: the range from startDate to endDate is",
      ],
      ["video", { summary: 1, startDate: "01/02/2026" }, "startDate: must be a date YYYY-MM-DD"],
      ["clicks", { summary: 1 }, "type: must be one of video, ads, livestream, viewers, ecommerce"],
    ];
    for (const [type, params, error] of cases) {
      const { res, body } = await analytics(type, params);
      expect(res.status, error).toBe(400);
      expect(body.error.startsWith(error), body.error).toBe(true);
    }
    const noAuth = await callJson(`/v2/analytics/video?summary=1&startDate=${D1}&endDate=${D1}`);
    expect(noAuth.res.status).toBe(401);
    const plain = await createOrg();
    const forbidden = await analytics("ecommerce", { summary: 1 });
    expect(forbidden.res.status).toBe(403);
    expect(forbidden.body.error).toBe(
      "analytics of type ecommerce requires the ecommerce entitlement",
    );
    expect((await analytics("video", { summary: 1 }, plain)).res.status).toBe(403);
    expect((await analytics("ads", { summary: 1 }, plain)).res.status).toBe(200);
  });

  it("is documented in the OpenAPI document", async () => {
    const { body } = await callJson("/openapi.json");
    const op = body.paths["/v2/analytics/{type}"].get;
    expect(op.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining([
        "type",
        "summary",
        "detailed",
        "startDate",
        "endDate",
        "fields",
        "tags",
        "page",
        "pageSize",
      ]),
    );
    expect(op.responses["200"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/AnalyticsPage",
    );
  });
});
