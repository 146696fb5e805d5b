import { beforeAll, describe, expect, it } from "vitest";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS } from "../src/shared/counters";
import { createContent, d1Cost, ingest, organizationId, report, utcDayAgo } from "./fixtures/stats";
import { admin, callJson, createOrg, statsD1, type TestOrg, writeJson } from "./helpers";

let org: TestOrg;
let a: string; // most played, syndicated
let b: string; // removed by the operator
let gone: string; // deleted with E5
const D3 = utcDayAgo(3);
const D2 = utcDayAgo(2);
const D1 = utcDayAgo(1);
const at = (day: string) => `${day}T12:00:00Z`;

const times = <T>(n: number, make: (i: number) => T) =>
  Array.from({ length: n }, (_, i) => make(i));

beforeAll(async () => {
  org = await createOrg({ entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"] });
  a = await createContent(org, {
    title: "Alpha",
    description: "first",
    categories: ["News"],
    tags: ["t1"],
    translations: [{ language: "fr", title: "Alpha fr", description: "premier" }],
  });
  b = await createContent(org, { title: "Beta" });
  gone = await createContent(org, { title: "Gone" });
  await ingest(
    org,
    [
      ...times(5, () => ({
        event: "video_played",
        contentKey: a,
        timestamp: at(D3),
        deviceType: "Desktop",
        playerId: "p1",
      })),
      ...times(2, () => ({
        event: "video_played",
        contentKey: a,
        timestamp: at(D2),
        deviceType: "Mobile",
      })),
      ...times(3, () => ({
        event: "video_exited_fulscreen",
        contentKey: a,
        timestamp: at(D2),
        deviceType: "Mobile",
      })),
      ...times(3, () => ({
        event: "video_played",
        contentKey: b,
        timestamp: at(D2),
        deviceType: "Desktop",
      })),
      ...times(9, () => ({
        event: "video_exited_fulscreen",
        contentKey: b,
        timestamp: at(D1),
        deviceType: "TV",
      })),
      ...times(4, () => ({
        event: "video_played",
        contentKey: gone,
        timestamp: at(D1),
        deviceType: "Desktop",
      })),
      {
        event: "ad_impression",
        contentKey: a,
        timestamp: at(D2),
        adPosition: "preroll",
        adCreative: "c1",
        adSystem: "vast",
        deviceType: "Desktop",
      },
      {
        event: "ad_50",
        contentKey: a,
        timestamp: at(D2),
        adPosition: "preroll",
        adCreative: "c1",
        adSystem: "vast",
        deviceType: "Desktop",
      },
      { event: "ad_skip", contentKey: b, timestamp: at(D1), deviceType: "Mobile" },
      {
        event: "ecommerce_clicked",
        contentKey: a,
        ecommerceKey: "shoe",
        timestamp: at(D2),
        deviceType: "Mobile",
      },
      {
        event: "ecommerce_visible",
        contentKey: a,
        ecommerceKey: "shoe",
        timestamp: at(D2),
        deviceType: "Mobile",
      },
      { event: "ecommerce_bar_shown", contentKey: b, timestamp: at(D1), deviceType: "Desktop" },
      {
        event: "ecommerce_clicked",
        contentKey: gone,
        ecommerceKey: "hat",
        timestamp: at(D1),
        deviceType: "Desktop",
      },
    ],
    { country: "GB" },
  );
  const patched = await admin(`/admin/videos/${a}`, "PATCH", {
    serviceCategories: ["Sport"],
    syndications: [
      {
        name: "uk",
        start_time: "2026-01-01T00:00:00.000Z",
        stop_time: "2027-01-01T00:00:00.000Z",
        geos: ["GBR"],
      },
    ],
  });
  expect(patched.res.status, JSON.stringify(patched.body)).toBe(200);
  expect((await admin(`/admin/videos/${b}`, "PATCH", { removed: true })).res.status).toBe(200);
  expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${gone}`)).res.status).toBe(200);
  // The ecommerce item the "shoe" statistics refer to (E12 include_ecommerce_data).
  const item = await writeJson(org, "POST", "/v2/ecommerce", {
    ecommerceKey: "shoe",
    ecommerceLink: "https://shop.example/shoes",
    ecommerceName: "Shoes",
  });
  expect(item.res.status, JSON.stringify(item.body)).toBe(200);
});

const VIDEO_ROW_KEYS = [
  "content_key",
  "date",
  "country",
  "video_device_type",
  "video_player_id",
  ...VIDEO_COUNTERS,
];

describe("E8 get_video_reports", () => {
  it("answers video statistics rows exactly as spec 2.5 names them", async () => {
    const { res, body } = await report("/prod/get_video_reports", org, {
      start_date: D3,
      end_date: D1,
    });
    expect(res.status).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.message).toBe("ok");
    expect(body.data).toHaveLength(5);
    for (const row of body.data) expect(Object.keys(row)).toEqual(VIDEO_ROW_KEYS);
    expect(body.data[0]).toMatchObject({
      content_key: a,
      date: `${D3}T23:59:59.000Z`,
      country: "GBR",
      video_device_type: "Desktop",
      video_player_id: "p1",
      video_played: 5,
      played_1s: 0,
    });
    // Ordered by date, then content key.
    expect(body.data.map((r: any) => [r.date.slice(0, 10), r.content_key])).toEqual([
      [D3, a],
      ...[a, b].sort().map((k) => [D2, k]),
      ...[b, gone].sort().map((k) => [D1, k]),
    ]);
  });

  it("filters by inclusive dates and content key, and keeps deleted content's statistics", async () => {
    const oneDay = await report("/prod/get_video_reports", org, { start_date: D2, end_date: D2 });
    expect(oneDay.body.data.map((r: any) => r.content_key)).toEqual([a, b].sort());
    const onlyA = await report("/prod/get_video_reports", org, {
      start_date: D3,
      end_date: D1,
      content_key: a,
    });
    expect(onlyA.body.data.map((r: any) => r.date.slice(0, 10))).toEqual([D3, D2]);
    expect(onlyA.body.data[1]).toMatchObject({
      video_played: 2,
      video_exited_fulscreen: 3,
      video_device_type: "Mobile",
      video_player_id: "none",
    });
    const deleted = await report("/prod/get_video_reports", org, {
      start_date: D1,
      end_date: D1,
      content_key: gone,
    });
    expect(deleted.body.data).toEqual([
      expect.objectContaining({ content_key: gone, video_played: 4 }),
    ]);
    const none = await report("/prod/get_video_reports", org, {
      start_date: "2020-01-01",
      end_date: "2020-12-31",
    });
    expect(none.body).toEqual({ status: "ok", message: "ok", data: [] });
  });

  it("reads the index range, not the organization's whole history", async () => {
    const { res } = await report("/prod/get_video_reports", org, {
      start_date: D2,
      end_date: D2,
      content_key: a,
    });
    // organization, then the video rows of one key and day (plus index probes).
    expect(d1Cost(res).rowsRead).toBeLessThanOrEqual(4);
  });

  it("answers 400 for bad dates, end before start and ranges over 366 days", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ end_date: D1 }, "start_date: is required"],
      [{ start_date: "2026-02-30", end_date: D1 }, "start_date: must be a date YYYY-MM-DD"],
      [{ start_date: "2026-1-01", end_date: D1 }, "start_date: must be a date YYYY-MM-DD"],
      [{ start_date: D1, end_date: "tomorrow" }, "end_date: must be a date YYYY-MM-DD"],
      [{ start_date: D1, end_date: D3 }, "end_date: must not be before start_date"],
      [
        { start_date: "2024-01-01", end_date: "2025-01-01" },
        "end_date: the range from start_date to end_date is 367 days; at most 366 are allowed",
      ],
      [
        { start_date: D1, end_date: D1, content_key: "not-a-key" },
        "content_key: must be 1 to 8 letters or digits",
      ],
    ];
    for (const [params, error] of cases) {
      const { res, body } = await report("/prod/get_video_reports", org, params);
      expect(res.status, error).toBe(400);
      expect(body).toEqual({ status: "KO", error });
    }
    // 366 days (a leap year) is fine.
    expect(
      (
        await report("/prod/get_video_reports", org, {
          start_date: "2024-01-01",
          end_date: "2024-12-31",
        })
      ).res.status,
    ).toBe(200);
  });

  it("answers 401 without a valid organization_key and 403 without the enterprise player", async () => {
    expect(
      (await callJson(`/prod/get_video_reports?start_date=${D1}&end_date=${D1}`)).res.status,
    ).toBe(401);
    expect(
      (
        await callJson(
          `/prod/get_video_reports?organization_key=nobody&start_date=${D1}&end_date=${D1}`,
          { headers: { "X-Service-Sync-Code": org.syncCode } },
        )
      ).res.status,
    ).toBe(401);
    // organization_key alone, without the sync code: 401.
    expect(
      (
        await callJson(
          `/prod/get_video_reports?organization_key=${org.organizationKey}&start_date=${D1}&end_date=${D1}`,
        )
      ).res.status,
    ).toBe(401);
    const mismatch = await callJson(
      `/prod/get_video_reports?organization_key=${org.organizationKey}&start_date=${D1}&end_date=${D1}`,
      {
        headers: { "X-Service-Sync-Code": "sc_someone_else" },
      },
    );
    expect(mismatch.res.status).toBe(401);
    const plain = await createOrg();
    for (const path of ["/prod/get_video_reports", "/prod/get_video_reports_combined"]) {
      const { res, body } = await report(path, plain, { start_date: D1, end_date: D1 });
      expect(res.status).toBe(403);
      expect(body).toEqual({
        status: "KO",
        error: `${path.slice(6)} requires the enterprise_player entitlement`,
      });
    }
  });

  it("streams a report of any size, and E9 refuses more than 10000 stats rows instead of cutting them", async () => {
    const big = await createOrg({ entitlements: ["enterprise_player"] });
    const id = await organizationId(big);
    // Straight into the rollup (10,001 rows through the queue would only slow the test down).
    await (await statsD1(big))
      .prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < 10001)
       insert into video_stats (organization_id, date, content_key, video_player_id, video_played) select ?, ?, 'bulk', printf('p%05d', i), 1 from n`,
      )
      .bind(id, D1)
      .run();
    const { res, body } = await report("/prod/get_video_reports", big, {
      start_date: D1,
      end_date: D1,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(body.status).toBe("ok");
    expect(body.data).toHaveLength(10_001);
    // Keyset pages in key order: no row twice, none left out.
    expect(body.data[0].video_player_id).toBe("p00001");
    expect(body.data[10_000].video_player_id).toBe("p10001");
    expect(new Set(body.data.map((r: any) => r.video_player_id)).size).toBe(10_001);
    // The first 5000 values were read before streaming began (Server-Timing covers those pages).
    expect(d1Cost(res).rowsRead).toBeGreaterThanOrEqual(5000);

    const combined = await report("/prod/get_video_reports_combined", big, {
      start_date: D1,
      end_date: D1,
    });
    expect(combined.res.status).toBe(400);
    expect(combined.body.error).toBe(
      "start_date, end_date: the report has more than 10000 stats rows; give result_limit, narrow the date range or give content_key",
    );
  });

  it("narrows to the sub-organization's content with X-Service-MMI-Key", async () => {
    const parent = await createOrg({ entitlements: ["enterprise_player", "mmi"] });
    const sub = await admin(
      `/admin/organizations/${parent.organizationKey}/sub-organizations`,
      "POST",
      { name: "Sub" },
    );
    const mmi = { "X-Service-MMI-Key": sub.body.mmiKey as string };
    const own = await createContent(parent);
    const created = await writeJson(parent, "POST", "/v2/content/", { contentSize: 10 }, mmi);
    const subKey = created.body.contentKey as string;
    await ingest(parent, [
      { event: "video_played", contentKey: own, timestamp: at(D1) },
      { event: "video_played", contentKey: subKey, timestamp: at(D1) },
    ]);
    const range = { start_date: D1, end_date: D1 };
    expect(
      (await report("/prod/get_video_reports", parent, range)).body.data
        .map((r: any) => r.content_key)
        .sort(),
    ).toEqual([own, subKey].sort());
    expect(
      (await report("/prod/get_video_reports", parent, range, mmi)).body.data.map(
        (r: any) => r.content_key,
      ),
    ).toEqual([subKey]);
  });

  it("answers a small report with an ETag and 304 on revalidation", async () => {
    const first = await report("/prod/get_video_reports", org, { start_date: D3, end_date: D1 });
    const etag = first.res.headers.get("ETag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.res.headers.get("Cache-Control")).toBe("private, max-age=60");
    const again = await report(
      "/prod/get_video_reports",
      org,
      { start_date: D3, end_date: D1 },
      { "If-None-Match": etag! },
    );
    expect(again.res.status).toBe(304);
  });
});

describe("E9 get_video_reports_combined", () => {
  it("lists each video with its full stats rows and its older record, removed and deleted ones too", async () => {
    const { res, body } = await report("/prod/get_video_reports_combined", org, {
      start_date: D3,
      end_date: D1,
    });
    expect(res.status).toBe(200);
    const byKey = new Map(body.data.map((e: any) => [e.stats[0].content_key, e]));
    expect([...byKey.keys()]).toEqual([a, b, gone].sort());
    const alpha: any = byKey.get(a);
    expect(alpha.stats.map((r: any) => Object.keys(r))).toEqual([VIDEO_ROW_KEYS, VIDEO_ROW_KEYS]);
    expect(Object.keys(alpha.video)).toEqual([
      "content_key",
      "created_date",
      "description",
      "duration",
      "service_categories",
      "isLive",
      "privateCategory",
      "privateTag",
      "removed",
      "syndications",
      "thumbnail",
      "title",
      "translations",
    ]);
    expect(alpha.video).toMatchObject({
      content_key: a,
      title: "Alpha",
      description: "first",
      duration: 0,
      service_categories: ["Sport"],
      privateCategory: ["News"],
      privateTag: ["t1"],
      removed: false,
      syndications: [
        {
          name: "uk",
          start_time: "2026-01-01T00:00:00.000Z",
          stop_time: "2027-01-01T00:00:00.000Z",
          geos: ["GBR"],
        },
      ],
      thumbnail: `https://catalog.test/thumbnails/${a}.jpg`,
      translations: [{ language: "fr", title: "Alpha fr", description: "premier" }],
    });
    expect((byKey.get(b) as any).video.removed).toBe(true);
    expect((byKey.get(gone) as any).video).toBeNull();
    expect((byKey.get(gone) as any).stats[0].video_played).toBe(4);
  });

  it("sorts videos by the total of sort_field, highest first, and keeps result_limit of them", async () => {
    const played = await report("/prod/get_video_reports_combined", org, {
      start_date: D3,
      end_date: D1,
      sort_field: "video_played",
      column_list: "video_played,video_exited_fullscreen",
    });
    // a: 7 plays, gone: 4, b: 3.
    expect(played.body.data.map((e: any) => e.stats[0].content_key)).toEqual([a, gone, b]);
    expect(played.body.data[0].stats).toEqual([
      { content_key: a, date: `${D3}T23:59:59.000Z`, video_played: 5, video_exited_fulscreen: 0 },
      { content_key: a, date: `${D2}T23:59:59.000Z`, video_played: 2, video_exited_fulscreen: 3 },
    ]);
    const top = await report("/prod/get_video_reports_combined", org, {
      start_date: D3,
      end_date: D1,
      sort_field: "video_exited_fullscreen",
      column_list: "video_exited_fulscreen",
      result_limit: 1,
    });
    expect(top.body.data).toHaveLength(1);
    expect(top.body.data[0].video.content_key).toBe(b);
    expect(top.body.data[0].stats.map((r: any) => r.video_exited_fulscreen)).toEqual([0, 9]);
  });

  it("breaks stats down by the dimensions listed in column_list", async () => {
    const { body } = await report("/prod/get_video_reports_combined", org, {
      start_date: D3,
      end_date: D1,
      content_key: a,
      column_list: "video_device_type,video_played",
      sort_field: "video_device_type",
    });
    expect(body.data).toHaveLength(1);
    expect(body.data[0].stats).toEqual([
      {
        content_key: a,
        date: `${D3}T23:59:59.000Z`,
        video_device_type: "Desktop",
        video_played: 5,
      },
      { content_key: a, date: `${D2}T23:59:59.000Z`, video_device_type: "Mobile", video_played: 2 },
    ]);
  });

  it("answers 400 for an unknown sort_field or column, and a column_list without its sort_field", async () => {
    const base = { start_date: D3, end_date: D1 };
    const cases: [Record<string, string | number>, string][] = [
      [{ sort_field: "plays" }, 'sort_field: unknown field "plays"'],
      [{ column_list: "video_played,country" }, 'column_list: unknown field "country"'],
      [
        { sort_field: "video_played", column_list: "played_1s" },
        "column_list: must include the sort_field video_played",
      ],
      [{ column_list: " , " }, "column_list: must list at least one field"],
      [{ result_limit: 0 }, "result_limit: must be at least 1"],
      [{ result_limit: "ten" }, "result_limit: must be an integer"],
    ];
    for (const [params, error] of cases) {
      const { res, body } = await report("/prod/get_video_reports_combined", org, {
        ...base,
        ...params,
      });
      expect(res.status, error).toBe(400);
      expect(body.error.startsWith(error), body.error).toBe(true);
    }
  });
});

describe("E11 get_ad_reports", () => {
  it("answers ad statistics rows with the alpha-2 country", async () => {
    const { res, body } = await report("/prod/get_ad_reports", org, {
      start_date: D3,
      end_date: D1,
    });
    expect(res.status).toBe(200);
    const keys = [
      "date",
      "content_key",
      "ad_country",
      "ad_creative",
      "ad_device_type",
      "ad_player_id",
      "ad_position",
      "ad_system",
      ...AD_COUNTERS,
    ];
    for (const row of body.data) expect(Object.keys(row)).toEqual(keys);
    expect(body.data).toEqual([
      expect.objectContaining({
        date: `${D2}T23:59:59.000Z`,
        content_key: a,
        ad_country: "GB",
        ad_creative: "c1",
        ad_position: "preroll",
        ad_system: "vast",
        ad_impression: 1,
        ad_50: 1,
      }),
      expect.objectContaining({
        date: `${D1}T23:59:59.000Z`,
        content_key: b,
        ad_creative: "none",
        ad_position: "none",
        ad_skip: 1,
      }),
    ]);
    const onlyB = await report("/prod/get_ad_reports", org, {
      start_date: D3,
      end_date: D1,
      content_key: b,
    });
    expect(onlyB.body.data).toHaveLength(1);
  });

  it("needs no entitlement", async () => {
    const plain = await createOrg();
    expect(
      (await report("/prod/get_ad_reports", plain, { start_date: D1, end_date: D1 })).res.status,
    ).toBe(200);
  });
});

describe("E12 get_ecommerce_reports and ecommerce items", () => {
  it("manages items with write credentials", async () => {
    // Its own organization: the report tests rely on the item made in beforeAll.
    const shop = await createOrg({ entitlements: ["ecommerce"] });
    const created = await writeJson(shop, "POST", "/v2/ecommerce", {
      ecommerceKey: "shoe",
      ecommerceLink: "https://shop.example/shoe",
      ecommerceName: "Shoe",
    });
    expect(created.res.status).toBe(200);
    expect(created.body).toMatchObject({
      status: "ok",
      message: "ok",
      data: {
        ecommerceKey: "shoe",
        ecommerceLink: "https://shop.example/shoe",
        ecommerceName: "Shoe",
      },
    });
    const dup = await writeJson(shop, "POST", "/v2/ecommerce", {
      ecommerceKey: "shoe",
      ecommerceLink: "https://shop.example/x",
      ecommerceName: "X",
    });
    expect(dup.res.status).toBe(400);
    expect(dup.body).toEqual({ status: "KO", error: "ecommerceKey: shoe is already in use" });
    const updated = await writeJson(shop, "PUT", "/v2/ecommerce", {
      ecommerceKey: "shoe",
      ecommerceLink: "https://shop.example/shoes",
      ecommerceName: "Shoes",
    });
    expect(updated.body.data).toMatchObject({
      ecommerceLink: "https://shop.example/shoes",
      ecommerceName: "Shoes",
    });
    expect(
      (
        await writeJson(shop, "PUT", "/v2/ecommerce", {
          ecommerceKey: "nope",
          ecommerceLink: "https://x.example",
          ecommerceName: "x",
        })
      ).res.status,
    ).toBe(404);
    await writeJson(shop, "POST", "/v2/ecommerce", {
      ecommerceKey: "tmp",
      ecommerceLink: "https://shop.example/tmp",
      ecommerceName: "Tmp",
    });
    expect(
      (await writeJson(shop, "GET", "/v2/ecommerce")).body.data.map((i: any) => i.ecommerceKey),
    ).toEqual(["shoe", "tmp"]);
    const removed = await writeJson(shop, "DELETE", "/v2/ecommerce?ecommerceKey=tmp");
    expect(removed.body.data.ecommerceKey).toBe("tmp");
    expect((await writeJson(shop, "DELETE", "/v2/ecommerce?ecommerceKey=tmp")).res.status).toBe(
      404,
    );
    const bad = await writeJson(shop, "POST", "/v2/ecommerce", {
      ecommerceKey: "none",
      ecommerceLink: "ftp://x",
      ecommerceName: "",
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toContain("ecommerceKey: none is reserved");
    expect(bad.body.error).toContain("ecommerceLink: must be an http(s) URL");
    // Another organization neither sees nor collides with it.
    const other = await createOrg({ entitlements: ["ecommerce"] });
    expect(
      (
        await writeJson(other, "POST", "/v2/ecommerce", {
          ecommerceKey: "shoe",
          ecommerceLink: "https://o.example",
          ecommerceName: "O",
        })
      ).res.status,
    ).toBe(200);
    // Write credentials and the ecommerce entitlement are required.
    expect(
      (await callJson("/v2/ecommerce", { headers: { "X-Service-Sync-Code": shop.syncCode } })).res
        .status,
    ).toBe(401);
    const plain = await createOrg();
    expect((await writeJson(plain, "GET", "/v2/ecommerce")).res.status).toBe(403);
  });

  it("answers stats, and info and video data when asked", async () => {
    const plainReport = await report("/prod/get_ecommerce_reports", org, {
      start_date: D3,
      end_date: D1,
    });
    expect(plainReport.res.status).toBe(200);
    const data = plainReport.body.data;
    expect(Object.keys(data)).toEqual(["ecommerce_info", "ecommerce_stats", "video_info"]);
    expect(data.ecommerce_info).toEqual([]);
    expect(data.video_info).toEqual([]);
    for (const row of data.ecommerce_stats) {
      expect(Object.keys(row)).toEqual([
        "date",
        "content_key",
        "ecommerce_key",
        "device_type",
        ...ECOMMERCE_COUNTERS,
      ]);
    }
    const day1 = [
      expect.objectContaining({
        date: `${D1}T23:59:59.000Z`,
        content_key: b,
        ecommerce_key: "none",
        ecommerce_bar_shown: 1,
      }),
      expect.objectContaining({
        date: `${D1}T23:59:59.000Z`,
        content_key: gone,
        ecommerce_key: "hat",
        ecommerce_clicked: 1,
      }),
    ];
    expect(data.ecommerce_stats).toEqual([
      expect.objectContaining({
        date: `${D2}T23:59:59.000Z`,
        content_key: a,
        ecommerce_key: "shoe",
        device_type: "Mobile",
        ecommerce_clicked: 1,
        ecommerce_visible: 1,
      }),
      ...(b < gone ? day1 : day1.reverse()),
    ]);

    const full = await report("/prod/get_ecommerce_reports", org, {
      start_date: D3,
      end_date: D1,
      include_video_data: 1,
      include_ecommerce_data: 1,
    });
    expect(full.body.data.ecommerce_info).toEqual([
      {
        ecommerce_key: "shoe",
        ecommerce_link: "https://shop.example/shoes",
        ecommerce_name: "Shoes",
      },
    ]);
    // By content key; the deleted video has no info.
    const info = full.body.data.video_info;
    expect(info.map((v: any) => v.content_key)).toEqual([a, b].sort());
    if (info[0].content_key !== a) info.reverse();
    expect(Object.keys(info[0])).toEqual([
      "content_key",
      "description",
      "duration",
      "service_categories",
      "privateCategories",
      "privateTags",
      "removed",
      "syndications",
      "thumbnail",
      "title",
      "translations",
    ]);
    expect(info[0]).toMatchObject({
      removed: 0,
      duration: null,
      privateCategories: ["News"],
      syndications: [
        {
          start_date: "2026-01-01T00:00:00.000Z",
          end_date: "2027-01-01T00:00:00.000Z",
          geos: ["GBR"],
        },
      ],
    });
    expect(info[1].removed).toBe(1);

    const onlyA = await report("/prod/get_ecommerce_reports", org, {
      start_date: D3,
      end_date: D1,
      content_key: a,
      include_video_data: 1,
    });
    expect(onlyA.body.data.ecommerce_stats).toHaveLength(1);
    expect(onlyA.body.data.video_info).toHaveLength(1);
  });

  it("answers 400 for a bad flag and 403 without the ecommerce add-on", async () => {
    const bad = await report("/prod/get_ecommerce_reports", org, {
      start_date: D1,
      end_date: D1,
      include_video_data: "yes",
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toBe("include_video_data: must be 0 or 1");
    const plain = await createOrg({ entitlements: ["enterprise_player"] });
    const { res, body } = await report("/prod/get_ecommerce_reports", plain, {
      start_date: D1,
      end_date: D1,
    });
    expect(res.status).toBe(403);
    expect(body).toEqual({
      status: "KO",
      error: "get_ecommerce_reports requires the ecommerce entitlement",
    });
  });
});

describe("OpenAPI", () => {
  it("documents every report", async () => {
    const { body } = await callJson("/openapi.json");
    for (const path of [
      "get_video_reports",
      "get_video_reports_combined",
      "get_viewer_reports",
      "get_ad_reports",
      "get_ecommerce_reports",
    ]) {
      expect(body.paths[`/prod/${path}`]?.get, path).toBeDefined();
    }
    expect(Object.keys(body.components.schemas.VideoStatsRow.properties)).toEqual(VIDEO_ROW_KEYS);
  });
});
