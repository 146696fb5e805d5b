// No 500 at any input size (issue "Safe on the open internet" §3): each endpoint takes its
// documented maximum and answers one past it with a 400 naming the limit. These inputs gave
// 500s when every value was a bound parameter (D1 allows 100 per statement).
import { beforeAll, describe, expect, it } from "vitest";
import { callJson, createOrg, type TestOrg, writeHeaders, writeJson } from "./helpers";

let org: TestOrg;
const names = (n: number, prefix = "n") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

beforeAll(async () => {
  org = await createOrg({
    entitlements: ["custom_fields", "events", "enterprise_player", "viewer_analytics"],
  });
});

describe("E1 and E4 bodies", () => {
  it("take 100 names of each kind, 100 custom fields and 50 subtitles of 2000-character URLs", async () => {
    const url = `https://subs.example.com/${"s".repeat(2000 - 30)}.vtt`;
    const body = {
      contentSize: 10,
      categories: names(100, "c"),
      tags: names(100, "t"),
      events: names(100, "e"),
      customFields: names(100).map((n, i) => ({ [n]: i % 2 ? n : i })),
      subtitles: names(50).map(() => ({ en: url })),
    };
    const created = await writeJson(org, "POST", "/v2/content/", body);
    expect(created.res.status, JSON.stringify(created.body).slice(0, 300)).toBe(200);
    expect(created.body.tags).toHaveLength(100);
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${created.body.contentKey}`);
    const updated = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      tags: names(100, "u"),
    });
    expect(updated.res.status, JSON.stringify(updated.body).slice(0, 300)).toBe(200);
    expect(updated.body.tags).toEqual(names(100, "u"));
  });

  it("answer one past each limit with a 400 naming it", async () => {
    for (const [field, value, message] of [
      ["tags", names(101), "tags: at most 100 tag names"],
      [
        "customFields",
        names(101).map((n) => ({ [n]: 1 })),
        "customFields: at most 100 custom fields",
      ],
      [
        "subtitles",
        names(51).map(() => ({ en: "https://s.example.com/a.vtt" })),
        "subtitles: Too big",
      ],
      [
        "subtitles",
        [{ en: `https://s.example.com/${"x".repeat(2000)}` }],
        "subtitles.0.en: must be at most 2000 characters",
      ],
      ["title", "t".repeat(501), "title: must be at most 500 characters"],
    ] as const) {
      const res = await writeJson(org, "POST", "/v2/content/", { contentSize: 10, [field]: value });
      expect(res.res.status, field).toBe(400);
      expect(res.body.message, field).toContain(message);
    }
  });

  it("bound the subtitle languages of a video at 100, counted over every subtitle object (issue 34 §3)", async () => {
    const languages = (n: number, from = 0) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => {
          return [`en-x${(from + i).toString().padStart(4, "0")}`, "https://s.io/a.vtt"];
        }),
      );
    const within = [languages(60), languages(40, 60)];
    const created = await writeJson(org, "POST", "/v2/content/", {
      contentSize: 10,
      subtitles: within,
    });
    expect(created.res.status, JSON.stringify(created.body).slice(0, 300)).toBe(200);
    const message = "subtitles: at most 100 subtitle languages per video (this body has";
    for (const subtitles of [[languages(101)], [languages(60), languages(41, 60)]]) {
      const refused = await writeJson(org, "POST", "/v2/content/", { contentSize: 10, subtitles });
      expect(refused.res.status).toBe(400);
      expect(refused.body.message).toContain(message);
    }
    // One object of 20,000 languages (a 2.6 MB master playlist once) is refused too, by E4 as well.
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${created.body.contentKey}`);
    const huge = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      subtitles: [languages(20_000)],
    });
    expect(huge.res.status).toBe(400);
    expect(huge.body.message).toContain(`${message} 20000)`);
  });

  it("refuse a body over 1 MB with 413", async () => {
    const res = await writeJson(
      org,
      "POST",
      "/v2/content/",
      JSON.stringify({ contentSize: 10, description: "d".repeat(1_100_000) }),
    );
    expect(res.res.status).toBe(413);
    expect(res.body.message).toMatch(/over 1048576 bytes/);
  });
});

describe("E6 and E7 filters", () => {
  const e6 = (query: string) =>
    callJson(`/v2/videos/?${query}`, { headers: { "X-Service-Sync-Code": org.syncCode } });
  const e7 = (query: string) =>
    callJson(`/v2/analytics/video?summary&startDate=2026-01-01&endDate=2026-01-02&${query}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
  const groups = (n: number, each: number) =>
    Array.from({ length: n }, (_, g) => names(each, `g${g}x`).join("|")).join(",");
  const fields = (n: number) => `[${Array.from({ length: n }, (_, i) => `{f${i}:a|b}`).join(",")}]`;

  const maxima = [
    ["tags", groups(20, 5)],
    ["categories", groups(20, 5)],
    ["events", groups(20, 5)],
    [
      "searchString",
      Array.from({ length: 20 }, (_, g) =>
        g < 10 ? `word${g}|more${g}|most${g}` : `word${g}`,
      ).join(","),
    ],
    ["customFields", fields(20)],
  ] as const;
  const pastMaxima = [
    ["tags", groups(21, 1), "tags: at most 20 ',' groups"],
    ["tags", groups(1, 101), "tags: at most 100 values"],
    ["searchString", groups(21, 1), "searchString: at most 20 ',' groups"],
    ["searchString", groups(2, 26), "searchString: at most 50 values"],
    ["customFields", fields(21), "customFields: at most 20 ',' groups"],
    ["tags", "x".repeat(2001), "tags: must be at most 2000 characters"],
  ] as const;

  it("take the maximum of every filter at once", async () => {
    const query = maxima.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("&");
    const listed = await e6(`${query}&pageSize=1000`);
    expect(listed.res.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.count).toBe(0);
    const analytics = await e7(query);
    expect(analytics.res.status, JSON.stringify(analytics.body)).toBe(200);
  });

  it("answer one past a limit with a 400 naming it", async () => {
    for (const [name, value, message] of pastMaxima) {
      for (const call of [e6, e7]) {
        const res = await call(`${name}=${encodeURIComponent(value)}`);
        expect(res.res.status, `${name} ${value.slice(0, 20)}`).toBe(400);
        expect(res.body.error).toContain(message);
      }
    }
  });
});

describe("E13 and E10 lists", () => {
  const report = (path: string, query: string, headers: Record<string, string>) =>
    callJson(`${path}?organization_key=${org.organizationKey}&${query}`, { headers });
  const sync = () => ({ "X-Service-Sync-Code": org.syncCode });

  it("E13 takes 100 values per list, with all-of matching too", async () => {
    for (const query of [
      `privateTags=${names(100).join(",")}&tagAnd=1`,
      `titleString=${names(100, "word").join(",")}&titleAnd=1`,
      `privateCategories=${names(100).join(",")}&categoryAnd=1&events=${names(100).join(",")}&eventAnd=1&and=1`,
    ]) {
      const res = await report("/prod/search_metadata", query, sync());
      expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    }
    const past = await report(
      "/prod/search_metadata",
      `privateTags=${names(101).join(",")}`,
      sync(),
    );
    expect(past.res.status).toBe(400);
    expect(past.body.error).toBe("privateTags: at most 100 values, got 101");
  });

  it("E10 takes 100 fingerprints", async () => {
    const list = (n: number) =>
      names(n, "fp")
        .map((f) => `"${f}"`)
        .join(",");
    const ok = await report(
      "/prod/get_viewer_reports",
      `start_date=2026-01-01&end_date=2026-01-02&fingerprint_list=${list(100)}`,
      writeHeaders(org),
    );
    expect(ok.res.status, JSON.stringify(ok.body)).toBe(200);
    const past = await report(
      "/prod/get_viewer_reports",
      `start_date=2026-01-01&end_date=2026-01-02&fingerprint_list=${list(101)}`,
      writeHeaders(org),
    );
    expect(past.res.status).toBe(400);
    expect(past.body.error).toBe("fingerprint_list: at most 100 fingerprints");
  });
});
