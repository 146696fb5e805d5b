// E10 get_viewer_reports (four modes and their rules), consent, entitlement, and erasure.
import { beforeAll, describe, expect, it } from "vitest";
import { VIEWER_AD_COUNTERS, VIEWER_VIDEO_COUNTERS } from "../src/shared/counters";
import { createContent, d1Cost, ingest, report, utcDayAgo } from "./fixtures/stats";
import { callJson, createOrg, type TestOrg, writeJson } from "./helpers";

let org: TestOrg;
let x: string;
let y: string;
const D2 = utcDayAgo(2);
const D1 = utcDayAgo(1);
const range = { start_date: D2, end_date: D1 };
const ip = { "CF-Connecting-IP": "198.51.100.9" };

beforeAll(async () => {
  org = await createOrg({ entitlements: ["viewer_analytics"] });
  x = await createContent(org);
  y = await createContent(org);
  const viewer = (fingerprint: string, tput?: string) => ({
    fingerprint,
    ...(tput && { tput }),
    consent: true,
    deviceType: "Mobile",
  });
  await ingest(
    org,
    [
      {
        event: "video_played",
        contentKey: x,
        timestamp: `${D2}T10:00:00Z`,
        ...viewer("fpA", "alice"),
      },
      {
        event: "played_25percent",
        contentKey: x,
        timestamp: `${D2}T10:00:05Z`,
        ...viewer("fpA", "alice"),
      },
      {
        event: "video_played",
        contentKey: y,
        timestamp: `${D1}T10:00:00Z`,
        ...viewer("fpA", "alice"),
      },
      {
        event: "ad_clicked",
        contentKey: y,
        timestamp: `${D1}T10:00:00Z`,
        adPosition: "preroll",
        ...viewer("fpA", "alice"),
      },
      { event: "video_played", contentKey: x, timestamp: `${D1}T11:00:00Z`, ...viewer("fpB") },
      {
        event: "video_played",
        contentKey: y,
        timestamp: `${D1}T12:00:00Z`,
        ...viewer("fpC", "carol"),
      },
      // No consent: counted in the video rows only.
      {
        event: "video_played",
        contentKey: x,
        timestamp: `${D1}T13:00:00Z`,
        fingerprint: "fpD",
        tput: "dave",
      },
    ],
    { country: "NL", headers: ip },
  );
});

const VIEWER_KEYS = [
  "date",
  "content_key",
  "country",
  "device_type",
  "ip",
  "fingerprint",
  "tput",
  ...VIEWER_VIDEO_COUNTERS,
  "ad_position",
  ...VIEWER_AD_COUNTERS,
];
const viewerReport = (params: Record<string, string>) =>
  report("/prod/get_viewer_reports", org, { ...range, ...params });

describe("E10 get_viewer_reports", () => {
  it("dates only: every consented viewer row, named as spec 2.5", async () => {
    const { res, body } = await viewerReport({});
    expect(res.status).toBe(200);
    expect(body.status).toBe("ok");
    for (const row of body.data) expect(Object.keys(row)).toEqual(VIEWER_KEYS);
    expect(body.data).toHaveLength(5);
    expect(body.data.map((r: any) => r.fingerprint).sort()).toEqual([
      "fpA",
      "fpA",
      "fpA",
      "fpB",
      "fpC",
    ]);
    expect(body.data.some((r: any) => r.fingerprint === "fpD")).toBe(false);
    const first = body.data.find((r: any) => r.content_key === x && r.date.startsWith(D2));
    expect(first).toMatchObject({
      date: `${D2}T23:59:59.000Z`,
      country: "NLD",
      device_type: "Mobile",
      ip: "198.51.100.9",
      video_played: 1,
      played_25percent: 1,
      ad_position: "none",
    });
    // Without tput in the query, tput is its stored hash (or none), never the token.
    expect(first.tput).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(body)).not.toContain("alice");
    expect(body.data.find((r: any) => r.fingerprint === "fpB").tput).toBe("none");
    const ad = body.data.find((r: any) => r.ad_position === "preroll");
    expect(ad).toMatchObject({ content_key: y, ad_clicked: 1, video_played: 0 });
  });

  it("content_key: that content's viewers, without the content_key field", async () => {
    const { body } = await viewerReport({ content_key: x });
    expect(body.data).toHaveLength(2);
    for (const row of body.data)
      expect(Object.keys(row)).toEqual(VIEWER_KEYS.filter((k) => k !== "content_key"));
    expect(body.data.map((r: any) => r.fingerprint).sort()).toEqual(["fpA", "fpB"]);
  });

  it("fingerprint_list: everything those devices watched", async () => {
    const { res, body } = await viewerReport({ fingerprint_list: '"fpB","fpC"' });
    expect(res.status).toBe(200);
    expect(body.data.map((r: any) => [r.fingerprint, r.content_key]).sort()).toEqual([
      ["fpB", x],
      ["fpC", y],
    ]);
    // Unquoted and bracketed forms are read the same way.
    expect((await viewerReport({ fingerprint_list: "[fpB, 'fpC']" })).body.data).toHaveLength(2);
    expect((await viewerReport({ fingerprint_list: '"fpA"' })).body.data).toHaveLength(3);
  });

  it("tput: everything that user watched, alone or with content_key", async () => {
    const { res, body } = await viewerReport({ tput: "alice" });
    expect(res.status).toBe(200);
    expect(body.data).toHaveLength(3);
    for (const row of body.data) expect(row.tput).toBe("alice");
    const both = await viewerReport({ tput: "alice", content_key: y });
    expect(both.body.data).toHaveLength(2);
    expect(
      both.body.data.every((r: any) => r.content_key === undefined && r.tput === "alice"),
    ).toBe(true);
    expect((await viewerReport({ tput: "dave" })).body.data).toEqual([]);
  });

  describe("one viewer among many", () => {
    // An organization of its own with 100 viewers on one day: what other tests leave in the
    // table cannot move the counts, and reading all of the organization's rows would show.
    let big: TestOrg;
    beforeAll(async () => {
      big = await createOrg({ entitlements: ["viewer_analytics"] });
      const k = await createContent(big);
      await ingest(
        big,
        Array.from({ length: 100 }, (_, i) => ({
          event: "video_played",
          contentKey: k,
          timestamp: `${D1}T10:00:00Z`,
          fingerprint: `fp${i}`,
          tput: `user-${i}`,
          consent: true,
        })),
      );
    });
    const one = (params: Record<string, string>) =>
      report("/prod/get_viewer_reports", big, { ...range, ...params });

    it("tput and fingerprint_list answer that viewer's rows only", async () => {
      const all = await one({});
      expect(all.body.data).toHaveLength(100);
      expect(d1Cost(all.res).rowsRead).toBeGreaterThanOrEqual(100);
      expect(
        (await one({ tput: "user-42" })).body.data.map((r: any) => [r.fingerprint, r.tput]),
      ).toEqual([["fp42", "user-42"]]);
      expect(
        (await one({ fingerprint_list: '"fp42","fp7"' })).body.data
          .map((r: any) => r.fingerprint)
          .sort(),
      ).toEqual(["fp42", "fp7"]);
    });

    // viewer_stats_tput_idx and viewer_stats_fingerprint_idx serve these modes: one viewer's rows
    // cost a handful of rows read, not every viewer row of the range (102 before the fix).
    it("tput mode reads a handful of rows through the tput index, not every viewer row of the range", async () => {
      const { res } = await one({ tput: "user-42" });
      expect(d1Cost(res).rowsRead).toBeLessThan(10);
    });

    it("fingerprint_list mode reads a handful of rows through the fingerprint index, not every viewer row of the range", async () => {
      const { res } = await one({ fingerprint_list: '"fp42"' });
      expect(d1Cost(res).rowsRead).toBeLessThan(10);
    });
  });

  it("answers 400 for content_key or tput with fingerprint_list, and an empty list", async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { content_key: x, fingerprint_list: '"fpA"' },
        "content_key: must not be given together with fingerprint_list",
      ],
      [
        { tput: "alice", fingerprint_list: '"fpA"' },
        "tput: must not be given together with fingerprint_list",
      ],
      [
        { fingerprint_list: '""' },
        'fingerprint_list: must list at least one fingerprint, each quoted, comma-separated: "a","b"',
      ],
      [{ start_date: D1, end_date: D2 }, "end_date: must not be before start_date"],
    ];
    for (const [params, error] of cases) {
      const { res, body } = await viewerReport(params);
      expect(res.status, error).toBe(400);
      expect(body).toEqual({ status: "KO", error });
    }
  });

  it("answers 403 without the viewer analytics package", async () => {
    const plain = await createOrg({ entitlements: ["enterprise_player", "ecommerce"] });
    const { res, body } = await report("/prod/get_viewer_reports", plain, range);
    expect(res.status).toBe(403);
    expect(body).toEqual({
      status: "KO",
      error: "get_viewer_reports requires the viewer_analytics entitlement",
    });
  });
});

describe("erasure DELETE /v2/viewers", () => {
  it("removes every row of a fingerprint, then of a tput", async () => {
    const other = await createOrg({ entitlements: ["viewer_analytics"] });
    const k = await createContent(other);
    await ingest(other, [
      {
        event: "video_played",
        contentKey: k,
        fingerprint: "fpZ",
        consent: true,
        timestamp: `${D2}T10:00:00Z`,
      },
      {
        event: "video_played",
        contentKey: k,
        fingerprint: "fpZ",
        consent: true,
        timestamp: `${D1}T10:00:00Z`,
      },
      { event: "video_played", contentKey: k, fingerprint: "fpY", tput: "zed", consent: true },
      { event: "video_played", contentKey: k, fingerprint: "fpX", consent: true },
    ]);
    const byFingerprint = await writeJson(other, "DELETE", "/v2/viewers?fingerprint=fpZ");
    expect(byFingerprint.res.status).toBe(200);
    expect(byFingerprint.body).toEqual({ status: "ok", message: "ok", data: { deleted: 2 } });
    const byTput = await writeJson(other, "DELETE", "/v2/viewers?tput=zed");
    expect(byTput.body.data).toEqual({ deleted: 1 });
    const today = new Date().toISOString().slice(0, 10);
    const left = await report("/prod/get_viewer_reports", other, {
      start_date: D2,
      end_date: today,
    });
    expect(left.body.data.map((r: any) => r.fingerprint)).toEqual(["fpX"]);
    // Another organization's rows of the same fingerprint are not touched.
    expect((await writeJson(org, "DELETE", "/v2/viewers?fingerprint=fpX")).body.data).toEqual({
      deleted: 0,
    });
    expect(
      (await report("/prod/get_viewer_reports", other, { start_date: D2, end_date: today })).body
        .data,
    ).toHaveLength(1);
  });

  it("needs exactly one of fingerprint and tput, and write credentials", async () => {
    for (const query of ["", "?fingerprint=a&tput=b"]) {
      const { res, body } = await writeJson(org, "DELETE", `/v2/viewers${query}`);
      expect(res.status).toBe(400);
      expect(body).toEqual({ status: "KO", error: "fingerprint, tput: give exactly one of them" });
    }
    const { res } = await callJson("/v2/viewers?fingerprint=fpA", {
      method: "DELETE",
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    expect(res.status).toBe(401);
  });
});
