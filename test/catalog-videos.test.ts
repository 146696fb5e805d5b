// E6 /v2/videos/ against a small hand-checked catalog: filter syntax, paging, gating, network
// windows, sub-organizations, removed videos, isolation, revalidation and cost.
import { beforeAll, describe, expect, it } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { ingest } from "./fixtures/stats";
import {
  admin,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  publishVideo,
  readHeaders,
  type TestOrg,
  writeJson,
} from "./helpers";

const ALL = [
  "network",
  "mmi",
  "watched_by_tput",
  "custom_fields",
  "events",
  "enterprise_player",
  "viewer_analytics",
  "ecommerce",
];
const mp4 = dataUrlBytes(mp4Url);

let a: TestOrg; // the publisher under test: every entitlement, in network netV
let b: TestOrg; // a network peer
let plain: TestOrg; // no entitlements, no network
let subKey: string;
const k: Record<string, string> = {};

const hour = 3600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

async function list(query: string, who: TestOrg = a, headers: Record<string, string> = {}) {
  return callJson(`/v2/videos/?${query}`, { headers: readHeaders(who, headers) });
}
async function keys(query: string, who: TestOrg = a, headers: Record<string, string> = {}) {
  const { res, body } = await list(query, who, headers);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return (body.data as { contentKey: string }[]).map((v) => v.contentKey).sort();
}
const names = (...ids: string[]) => ids.map((id) => k[id]!).sort();

beforeAll(async () => {
  const network = `netV${Date.now()}`;
  a = await createOrg({ entitlements: ALL, network });
  b = await createOrg({ entitlements: [], network });
  plain = await createOrg({ plan: "enterprise" });
  subKey = (
    await admin(`/admin/organizations/${a.organizationKey}/sub-organizations`, "POST", {
      name: "Sub",
    })
  ).body.mmiKey;

  k.v1 = await publishVideo(a, mp4, {
    title: "Breaking news café",
    description: "first",
    categories: ["News"],
    tags: ["alpha", "beta"],
    events: ["Launch"],
    customFields: [{ season: 1 }, { show: "Morning" }],
  });
  k.v2 = await publishVideo(a, mp4, {
    title: "Sport highlights",
    description: "zurich game",
    categories: ["News", "Sport"],
    tags: ["beta"],
    customFields: [{ season: 2 }],
  });
  k.v3 = await publishVideo(a, mp4, {
    title: "Final match",
    description: "Zürich derby",
    categories: ["Sport"],
    tags: ["gamma"],
    events: ["Finals"],
    customFields: [{ season: "2" }, { show: "Evening" }],
  });
  k.v4 = await publishVideo(a, mp4, {
    title: "Concert",
    categories: ["Music"],
    tags: ["rock,roll", "a|b"],
  });
  k.v5 = await publishVideo(a, mp4, { title: "Withdrawn", tags: ["alpha"] });
  k.v7 = await publishVideo(
    a,
    mp4,
    { title: "Sub video", tags: ["alpha"] },
    { "X-Service-MMI-Key": subKey },
  );
  // Created but never completed: never listed.
  k.v6 = (
    await writeJson(a, "POST", "/v2/content/", {
      contentSize: 10,
      title: "pending",
      tags: ["alpha"],
    })
  ).body.contentKey;

  k.w1 = await publishVideo(b, mp4, { title: "Peer US only", tags: ["alpha"] });
  k.w2 = await publishVideo(b, mp4, { title: "Peer everywhere" });
  k.w3 = await publishVideo(b, mp4, { title: "Peer closed" });
  k.w4 = await publishVideo(b, mp4, { title: "Peer no window" });
  k.w5 = await publishVideo(b, mp4, { title: "Peer future" });
  const windows: [string, object[]][] = [
    ["w1", [{ name: "us", start_time: iso(-hour), stop_time: iso(hour), geos: ["USA"] }]],
    ["w2", [{ name: "all", start_time: iso(-hour), stop_time: null, geos: [] }]],
    ["w3", [{ name: "past", start_time: iso(-2 * hour), stop_time: iso(-hour), geos: [] }]],
    ["w5", [{ name: "future", start_time: iso(hour), stop_time: null, geos: ["-"] }]],
  ];
  for (const [id, syndications] of windows) {
    const res = await admin(`/admin/videos/${k[id]}`, "PATCH", { syndications });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
  }
  const removed = await admin(`/admin/videos/${k.v5}`, "PATCH", { removed: true });
  expect(removed.body.removed).toBe(true);
});

describe("E6 listing", () => {
  it("lists own listable videos newest first with full 2.2 records and the total count", async () => {
    const { res, body } = await list("");
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ count: 5, message: "ok", page: 1, pageSize: 100 });
    expect(body.data.map((v: any) => v.contentKey)).toEqual([k.v7, k.v4, k.v3, k.v2, k.v1]);
    const v1 = body.data.find((v: any) => v.contentKey === k.v1);
    expect(Object.keys(v1).sort()).toEqual(
      [
        "categories",
        "contentKey",
        "createdDate",
        "customFields",
        "description",
        "duration",
        "events",
        "isLive",
        "publishedDate",
        "serviceCategories",
        "tags",
        "thumbnail",
        "title",
        "url",
        "urlHLS",
      ].sort(),
    );
    expect(v1).toMatchObject({
      title: "Breaking news café",
      categories: ["News"],
      tags: ["alpha", "beta"],
      events: ["Launch"],
      customFields: [{ season: 1 }, { show: "Morning" }],
      isLive: false,
      urlHLS: expect.stringMatching(
        /^https:\/\/catalog\.test\/hls\/[A-Za-z0-9]+\/h2-[0-9a-z]+\/master\.m3u8$/,
      ),
      serviceCategories: [],
      url: `https://catalog.test/media/${k.v1}/${k.v1}.mp4`,
      thumbnail: `https://catalog.test/thumbnails/${k.v1}.jpg`,
    });
    expect(typeof v1.duration).toBe("number");
    expect(v1.duration).toBeCloseTo(2, 0);
  });

  it("filters names with , (all) and | (any), mixed, and URL-encoded separators in values", async () => {
    expect(await keys("tags=alpha")).toEqual(names("v1", "v7"));
    expect(await keys("tags=alpha,beta")).toEqual(names("v1"));
    expect(await keys("tags=alpha|gamma")).toEqual(names("v1", "v3", "v7"));
    expect(await keys("tags=beta,alpha|gamma")).toEqual(names("v1"));
    expect(await keys(`tags=${encodeURIComponent("beta,alpha|gamma")}`)).toEqual(names("v1"));
    expect(await keys("categories=News|Music")).toEqual(names("v1", "v2", "v4"));
    expect(await keys("categories=News,Sport")).toEqual(names("v2"));
    expect(await keys("categories=news")).toEqual([]); // case-sensitive
    expect(await keys("tags=rock%252Croll")).toEqual(names("v4"));
    expect(await keys("tags=a%257Cb")).toEqual(names("v4"));
    expect(await keys("tags=rock,roll")).toEqual([]);
    expect(await keys("tags=nosuch|beta")).toEqual(names("v1", "v2"));
    expect(await keys("events=Launch|Finals")).toEqual(names("v1", "v3"));
    // Separate parameters must all hold.
    expect(await keys("tags=beta&categories=Sport")).toEqual(names("v2"));
  });

  it("filters custom fields: | any, ! all, several fields", async () => {
    expect(await keys(encodeURI("customFields=[{season:2}]"))).toEqual(names("v2", "v3"));
    expect(await keys(encodeURI("customFields=[{season:1|2}]"))).toEqual(names("v1", "v2", "v3"));
    expect(await keys(encodeURI("customFields=[{show:Morning!Evening}]"))).toEqual([]);
    expect(await keys(encodeURI("customFields=[{season:2},{show:Evening}]"))).toEqual(names("v3"));
    expect(await keys(encodeURI("customFields=[{season:2,show:Evening}]"))).toEqual(names("v3"));
    const { res, body } = await list(encodeURI("customFields=[{season2}]"));
    expect(res.status).toBe(400);
    expect(body).toEqual({
      status: "KO",
      error: "customFields: expected ':' at position 9 of \"[{season2}]\"",
    });
    const unclosed = await list(encodeURI("customFields=[{season:2}"));
    expect(unclosed.body.error).toBe(`customFields: expected ']' at position 11 of "[{season:2}"`);
  });

  it("matches searchString against title, description (case and diacritics folded) or content key", async () => {
    expect(await keys("searchString=zurich")).toEqual(names("v2", "v3"));
    expect(await keys("searchString=CAF%C3%89")).toEqual(names("v1"));
    expect(await keys("searchString=news,cafe")).toEqual(names("v1"));
    expect(await keys("searchString=concert|fin")).toEqual(names("v3", "v4"));
    expect(await keys(`searchString=${k.v2}`)).toEqual(names("v2"));
    // Several words ending in a prefix, checked row by row beside a tag that leads (the prefix
    // expanded to its words: an FTS5 group needs an explicit AND after a word).
    expect(await keys("searchString=zurich%20gam")).toEqual(names("v2"));
    expect(await keys("searchString=zurich%20gam&tags=beta")).toEqual(names("v2"));
    expect(await keys("searchString=sport%20highlights%20zur&tags=beta")).toEqual(names("v2"));
  });

  it("returns one video by contentKey, and restricts to a feed", async () => {
    expect(await keys(`contentKey=${k.v3}`)).toEqual(names("v3"));
    expect(await keys(`contentKey=${k.w1}`)).toEqual([]);
    const feed = await writeJson(a, "POST", "/v2/feeds", {
      name: "Mixed",
      configuration: { tags: ["gamma"], categories: ["Music"] },
    });
    expect(feed.res.status).toBe(200);
    expect(await keys(`feedId=${feed.body.feed_id}`)).toEqual(names("v3", "v4"));
    const all = await writeJson(a, "POST", "/v2/feeds", { name: "All" });
    expect(await keys(`feedId=${all.body.feed_id}`)).toEqual(names("v1", "v2", "v3", "v4", "v7"));
    const foreign = await writeJson(b, "POST", "/v2/feeds", { name: "Theirs" });
    expect((await list(`feedId=${foreign.body.feed_id}`)).res.status).toBe(404);
  });

  it("pages: last page, past the end, bounds", async () => {
    const p1 = await list("pageSize=2&page=1");
    expect(p1.body).toMatchObject({ count: 5, page: 1, pageSize: 2 });
    expect(p1.body.data.map((v: any) => v.contentKey)).toEqual([k.v7, k.v4]);
    const p3 = await list("pageSize=2&page=3");
    expect(p3.body.data.map((v: any) => v.contentKey)).toEqual([k.v1]);
    const p4 = await list("pageSize=2&page=4");
    expect(p4.body).toMatchObject({ count: 5, data: [] });
    for (const [q, error] of [
      ["pageSize=0", "pageSize: pageSize must be at least 1"],
      ["pageSize=1001", "pageSize: pageSize must be at most 1000"],
      ["page=0", "page: page must be at least 1"],
      ["page=x", "page: page must be an integer"],
      ["networkVideos=2", "networkVideos: networkVideos must be 0 or 1"],
    ]) {
      const { res, body } = await list(q!);
      expect(res.status, q).toBe(400);
      expect(body).toEqual({ status: "KO", error });
    }
    const filteredPage = await list("tags=alpha|beta&pageSize=1&page=2");
    expect(filteredPage.body.count).toBe(3);
    expect(filteredPage.body.data.map((v: any) => v.contentKey)).toEqual([k.v2]);
  });

  it("scopes to a sub-organization with mmi or the MMI header", async () => {
    expect(await keys(`mmi=${subKey}`)).toEqual(names("v7"));
    expect(await keys("", a, { "X-Service-MMI-Key": subKey })).toEqual(names("v7"));
    const { body } = await list("", a, { "X-Service-MMI-Key": subKey });
    expect(body.count).toBe(1);
    expect((await list("mmi=unknown")).res.status).toBe(400);
  });

  it("adds network videos whose window is open for the requester's country", async () => {
    const own = names("v1", "v2", "v3", "v4", "v7");
    expect(await keys("networkVideos=1", a, { "CF-IPCountry": "US" })).toEqual(
      [...own, k.w1!, k.w2!].sort(),
    );
    expect(await keys("networkVideos=1", a, { "CF-IPCountry": "FR" })).toEqual(
      [...own, k.w2!].sort(),
    );
    expect(await keys("networkVideos=1")).toEqual([...own, k.w2!].sort()); // unknown country: only unrestricted windows
    const { body } = await list("networkVideos=1", a, { "CF-IPCountry": "US" });
    expect(body.count).toBe(7);
    // Own and network videos are listed by two queries and merged: pages must still interleave
    // by publishedDate, newest first (a newer own video goes before the network ones).
    const newest = await publishVideo(a, mp4, { title: "Newest own" });
    const merged = await list("networkVideos=1", a, { "CF-IPCountry": "US" });
    const order = merged.body.data.map((v: any) => v.contentKey);
    expect(order[0]).toBe(newest);
    expect(order.slice(1, 3).sort()).toEqual([k.w1!, k.w2!].sort());
    const published = merged.body.data.map((v: any) => v.publishedDate);
    expect([...published].sort().reverse()).toEqual(published);
    // The merge reads order keys, then the page's records by id: every page carries the same
    // whole records, in the same order, as the one page of everything.
    const paged: unknown[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(`networkVideos=1&pageSize=3&page=${page}`, a, {
        "CF-IPCountry": "US",
      });
      expect(res.body.count).toBe(8);
      paged.push(...res.body.data);
    }
    expect(paged.map((v: any) => v.contentKey)).toEqual(order);
    expect(paged).toEqual(merged.body.data);
    await writeJson(a, "DELETE", `/v2/content?contentKey=${newest}`);
    // Filters apply across the network by name.
    expect(await keys("networkVideos=1&tags=alpha", a, { "CF-IPCountry": "US" })).toEqual(
      names("v1", "v7", "w1"),
    );
    // A window closing hides the video; opening shows it.
    await admin(`/admin/videos/${k.w2}`, "PATCH", {
      syndications: [{ start_time: iso(-2 * hour), stop_time: iso(-1000) }],
    });
    expect(await keys("networkVideos=1", a, { "CF-IPCountry": "FR" })).toEqual(own);
    await admin(`/admin/videos/${k.w5}`, "PATCH", {
      syndications: [{ start_time: iso(-1000), stop_time: iso(hour), geos: ["FRA"] }],
    });
    expect(await keys("networkVideos=1", a, { "CF-IPCountry": "FR" })).toEqual(
      [...own, k.w5!].sort(),
    );
    // The peer's own listing is unaffected by windows.
    expect(await keys("", b)).toEqual(names("w1", "w2", "w3", "w4", "w5"));
  });

  it("is private and varies by credentials and country (network windows depend on it)", async () => {
    for (const path of ["/v2/videos/", "/v2/videos"]) {
      const { res } = await callJson(`${path}?networkVideos=1`, {
        headers: readHeaders(a, { "CF-IPCountry": "US" }),
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("Cache-Control"), path).toBe("private, max-age=30");
      const vary = (res.headers.get("Vary") ?? "").split(/,\s*/);
      expect(vary, path).toEqual(expect.arrayContaining(["X-Service-Sync-Code", "CF-IPCountry"]));
    }
  });

  it("answers 403 for each gated parameter without its entitlement", async () => {
    for (const [q, entitlement] of [
      ["mmi=x", "mmi"],
      ["networkVideos=1", "network"],
      ["watchedByTput=abc", "watched_by_tput"],
      [encodeURI("customFields=[{a:1}]"), "custom_fields"],
      ["events=Launch", "events"],
    ]) {
      const { res, body } = await list(q!, plain);
      expect(res.status, q).toBe(403);
      expect(body.error).toMatch(new RegExp(`requires the ${entitlement} entitlement$`));
    }
    expect((await list("networkVideos=0", plain)).res.status).toBe(200);
  });

  it("lists videos watched by a third party user token (consented viewer rows)", async () => {
    await ingest(a, [
      { event: "video_played", contentKey: k.v2, tput: "viewer-1", consent: true },
      { event: "played_1s", contentKey: k.v3, tput: "viewer-1", consent: true },
      { event: "video_played", contentKey: k.v4, tput: "viewer-2", consent: true },
      { event: "video_played", contentKey: k.v1, tput: "viewer-1" }, // no consent: no viewer row
    ]);
    expect(await keys("watchedByTput=viewer-1")).toEqual(names("v2", "v3"));
    expect(await keys("watchedByTput=viewer-1&tags=beta")).toEqual(names("v2"));
    expect(await keys("watchedByTput=nobody")).toEqual([]);
  });

  it("keeps organizations apart and hides removed and unfinished videos", async () => {
    expect(await keys("", plain)).toEqual([]);
    expect(await keys(`contentKey=${k.v5}`)).toEqual([]);
    expect(await keys(`contentKey=${k.v6}`)).toEqual([]);
    expect((await callJson("/v2/videos/")).res.status).toBe(401);
    expect(
      (await callJson("/v2/videos/", { headers: { "X-Service-Sync-Code": "nope" } })).res.status,
    ).toBe(401);
    // Restoring a removed video lists it again and the count follows.
    await admin(`/admin/videos/${k.v5}`, "PATCH", { removed: false });
    expect((await list("")).body.count).toBe(6);
    await admin(`/admin/videos/${k.v5}`, "PATCH", { removed: true });
    expect((await list("")).body.count).toBe(5);
  });

  it("revalidates with ETag and answers 304", async () => {
    const first = await list("tags=beta");
    const etag = first.res.headers.get("ETag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.res.headers.get("Cache-Control")).toBe("private, max-age=30");
    const again = await callJson("/v2/videos/?tags=beta", {
      headers: readHeaders(a, { "If-None-Match": etag }),
    });
    expect(again.res.status).toBe(304);
    expect(again.body).toBeNull();
    await writeJson(a, "PUT", "/v2/content", {
      contentKey: k.v2,
      title: "Sport highlights (updated)",
      description: "zurich game",
      thumbnailUrl: null,
      categories: ["News", "Sport"],
      tags: ["beta"],
      events: [],
      customFields: [{ season: 2 }],
    });
    const changed = await callJson("/v2/videos/?tags=beta", {
      headers: readHeaders(a, { "If-None-Match": etag }),
    });
    expect(changed.res.status).toBe(200);
    expect(changed.res.headers.get("ETag")).not.toBe(etag);
  });

  it("reads a bounded number of D1 rows", async () => {
    const unfiltered = await list("pageSize=2");
    // Credentials lookup + one page through the partial index + the counter row.
    expect(d1Cost(unfiltered.res).rowsRead).toBeLessThanOrEqual(12);
    const filtered = await list("tags=alpha&pageSize=2");
    expect(d1Cost(filtered.res).rowsRead).toBeLessThanOrEqual(40);
  });

  it("answers a page past the end with its count, without reading the rows it would skip", async () => {
    const all = await list("pageSize=3");
    const total = all.body.count as number;
    expect(total).toBeGreaterThan(2);
    // Read as they are (a bookmark): not from ids kept by an earlier page (listing-ids.test.ts).
    const itself = { "X-D1-Bookmark": all.res.headers.get("X-D1-Bookmark")! };
    for (const filter of ["", "&tags=alpha"]) {
      const first = await list(`pageSize=1${filter}`, a, itself);
      const past = await list(`pageSize=1&page=${total + 1}${filter}`, a, itself);
      expect(past.res.status).toBe(200);
      expect(past.body.data).toEqual([]);
      expect(past.body.count).toBe(first.body.count);
      // No more than the first page: OFFSET would have read every row it skips.
      expect(d1Cost(past.res).rowsRead, filter).toBeLessThanOrEqual(d1Cost(first.res).rowsRead);
    }
    const last = await list(`pageSize=1&page=${total}`);
    expect(last.body.data).toHaveLength(1);
  });
});
