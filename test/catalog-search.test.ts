// E13 (every flag combination against a hand-checked catalog), E14, E15, E16 and feed definitions.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  type TestOrg,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
let org: TestOrg;
let other: TestOrg;
const k: Record<string, string> = {};
const names = (...ids: string[]) => ids.map((id) => k[id]!).sort();

beforeAll(async () => {
  org = await createOrg({ entitlements: ["events"] });
  other = await createOrg();
  // Hand-checked catalog (names are case-sensitive).
  k.s1 = await publishVideo(org, mp4, {
    title: "Alpha story",
    tags: ["t1"],
    categories: ["c1"],
    events: ["e1"],
    translations: [{ language: "fr", title: "Histoire", description: "" }],
  });
  k.s2 = await publishVideo(org, mp4, { title: "Beta story", tags: ["t2"], categories: ["c1"] });
  k.s3 = await publishVideo(org, mp4, {
    title: "Gamma tale",
    description: "Crème brûlée",
    categories: ["c2"],
    events: ["e1"],
  });
  k.s4 = await publishVideo(org, mp4, { title: "Delta", tags: ["t1", "t2"], events: ["e2"] });
  k.s5 = await publishVideo(org, mp4, { title: "Epsilon", description: "story without names" });
  k.gone = await publishVideo(org, mp4, {
    title: "Removed story",
    tags: ["t1"],
    categories: ["c1"],
    events: ["e1"],
  });
  await admin(`/admin/videos/${k.gone}`, "PATCH", { removed: true });
  k.x1 = await publishVideo(other, mp4, { title: "Alpha story elsewhere", tags: ["t1"] });
});

/** E13, E14, E16: organization_key with the sync code of the same organization. */
const sync = () => ({ "X-Service-Sync-Code": org.syncCode });

async function search(path: string, query: string) {
  const { res, body } = await callJson(
    `${path}?organization_key=${org.organizationKey}${query ? `&${query}` : ""}`,
    { headers: sync() },
  );
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.status).toBe("ok");
  return (body.data as { content_key: string }[]).map((r) => r.content_key).sort();
}
const meta = (query: string) => search("/prod/search_metadata", query);

describe("E13 search_metadata", () => {
  const cases: [string, string[]][] = [
    // and=0 (default): union; when tags are not requested every tagged video is added.
    ["", ["s1", "s2", "s4"]],
    ["privateTags=t1", ["s1", "s4"]],
    ["privateTags=t1,t2", ["s1", "s2", "s4"]],
    ["privateTags=t1,t2&tagAnd=1", ["s4"]],
    ["privateCategories=c2", ["s1", "s2", "s3", "s4"]],
    ["events=e2", ["s1", "s2", "s4"]],
    ["events=e1&privateCategories=c1", ["s1", "s2", "s3", "s4"]],
    ["privateTags=t2&events=e1", ["s1", "s2", "s3", "s4"]],
    ["privateTags=t2&events=e2", ["s2", "s4"]],
    // and=1: intersection of what was asked for.
    ["and=1", ["s1", "s2", "s4"]],
    ["events=e1&and=1", ["s1", "s3"]],
    ["events=e1&privateTags=t1&and=1", ["s1"]],
    ["events=e1&privateCategories=c1&and=1", ["s1"]],
    ["privateTags=t1,t2&privateCategories=c1&and=1", ["s1", "s2"]],
    ["privateTags=t1,t2&tagAnd=1&privateCategories=c1&and=1", []],
    ["privateCategories=c1,c2&and=1", ["s1", "s2", "s3"]],
    ["privateCategories=c1,c2&categoryAnd=1&and=1", []],
    ["events=e1,e2&and=1", ["s1", "s3", "s4"]],
    ["events=e1,e2&eventAnd=1&and=1", []],
    // titleString: any word/phrase in title or description, not case-sensitive.
    ["titleString=story&and=1", ["s1", "s2", "s5"]],
    ["titleString=ALPHA,delta&and=1", ["s1", "s4"]],
    ["titleString=alpha,story&titleAnd=1&and=1", ["s1"]],
    ["titleString=creme&and=1", ["s3"]],
    ["titleString=gamma&events=e1&and=1", ["s3"]],
    ["titleString=epsilon", ["s1", "s2", "s4", "s5"]],
    // Aliases and case-sensitivity.
    ["tagString=t2&and=1", ["s2", "s4"]],
    ["categoryString=c2&and=1", ["s3"]],
    ["privateTags=T1&and=1", []],
    ["privateTags=nosuch", []],
  ];
  for (const [query, expected] of cases) {
    it(`?${query || "(no parameters)"} → ${expected.join(", ") || "nothing"}`, async () => {
      expect(await meta(query)).toEqual(names(...expected));
    });
  }

  it("answers the older name the same way, with the spec's record fields", async () => {
    expect(await search("/prod/get_video_by_cattag", "privateTags=t1")).toEqual(names("s1", "s4"));
    const { body } = await callJson(
      `/prod/search_metadata?organization_key=${org.organizationKey}&privateTags=t1&tagAnd=1&privateCategories=c1&and=1`,
      {
        headers: sync(),
      },
    );
    expect(body.message).toBe("ok");
    expect(body.data).toHaveLength(1);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "content_key",
        "created_date",
        "description",
        "duration",
        "events",
        "isLive",
        "privateCategory",
        "privateTag",
        "removed",
        "service_categories",
        "thumbnail",
        "title",
      ].sort(),
    );
    expect(body.data[0]).toMatchObject({
      content_key: k.s1,
      privateCategory: ["c1"],
      privateTag: ["t1"],
      events: ["e1"],
      removed: false,
    });
  });

  it("requires a known organization_key and a matching sync code", async () => {
    expect((await callJson("/prod/search_metadata")).res.status).toBe(401);
    expect(
      (await callJson("/prod/search_metadata?organization_key=nobody", { headers: sync() })).body,
    ).toEqual({
      status: "KO",
      error:
        "authentication failed: organization_key and X-Service-Sync-Code do not name one organization",
    });
    // The organization_key alone (public: it is in feed URLs) no longer reads.
    expect(
      (await callJson(`/prod/search_metadata?organization_key=${org.organizationKey}`)).res.status,
    ).toBe(401);
    const mismatch = await callJson(
      `/prod/search_metadata?organization_key=${org.organizationKey}`,
      {
        headers: { "X-Service-Sync-Code": other.syncCode },
      },
    );
    expect(mismatch.res.status).toBe(401);
    const match = await callJson(`/prod/search_metadata?organization_key=${org.organizationKey}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    expect(match.res.status).toBe(200);
  });
});

describe("E14 search_video_list", () => {
  const list = (q: string) => search("/prod/search_video_list", q);

  it("searches title and description words, last word as prefix, case and diacritics folded", async () => {
    expect(await list("searchString=story")).toEqual(names("s1", "s2", "s5"));
    expect(await list("searchString=sto")).toEqual(names("s1", "s2", "s5"));
    expect(await list("searchString=alpha%20story")).toEqual(names("s1"));
    expect(await list("searchString=BR%C3%9BL")).toEqual(names("s3"));
    expect(await list("searchString=brul")).toEqual(names("s3"));
    expect(await list("searchString=zzzzz")).toEqual([]);
  });

  it("ranks by relevance, then newest", async () => {
    const { body } = await callJson(
      `/prod/search_video_list?organization_key=${org.organizationKey}&searchString=story`,
      { headers: sync() },
    );
    // s5 mentions "story" only in a longer description; the titles rank first, newest first among equals.
    expect(body.data.map((r: any) => r.content_key)).toEqual([k.s2, k.s1, k.s5]);
  });

  it("past SEARCH_RANK_CANDIDATES matches ranks none: title matches first, then description-only ones, each newest first, page by page", async () => {
    const ranked = async (candidates: number, paging = "") => {
      const ctx = createExecutionContext();
      const req = new Request(
        `${ORIGIN}/prod/search_video_list?organization_key=${org.organizationKey}&searchString=story${paging}`,
        { headers: sync() },
      );
      const res = await worker.fetch(
        req,
        { ...env, SEARCH_RANK_CANDIDATES: String(candidates) },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { content_key: string }[] }).data.map(
        (r) => r.content_key,
      );
    };
    // (Each call its own query string: the edge cache keys answers by URL, not by settings.)
    // Three matches, at most three ranked: by relevance (titles first here), newest first among equals.
    expect(await ranked(3, "&limit=99")).toEqual([k.s2, k.s1, k.s5]);
    // At most two: none ranked. The titles that match, newest first (s2, then s1, the oldest
    // match), then s5, which matches in its description only though it is newer than s1.
    expect(await ranked(2, "&limit=98")).toEqual([k.s2, k.s1, k.s5]);
    expect(await ranked(1, "&limit=97")).toEqual([k.s2, k.s1, k.s5]);
    // One at a time, the pages hold the same order, across the titles' end; past the end, none.
    const pages = [];
    for (const start of [0, 1, 2, 3]) pages.push(...(await ranked(2, `&start=${start}&limit=1`)));
    expect(pages).toEqual([k.s2, k.s1, k.s5]);
    expect(await ranked(2, "&start=1&limit=2")).toEqual([k.s1, k.s5]);
    expect(await ranked(2, "&start=2&limit=5")).toEqual([k.s5]);
  });

  it("finds a prefix that stands for more words than are written out (16), as a prefix query", async () => {
    const mine = await createOrg();
    const words = Array.from({ length: 17 }, (_, i) => `zqx${String.fromCharCode(97 + i)}`);
    const key = await publishVideo(mine, mp4, {
      title: "Many words",
      description: words.join(" "),
    });
    const found = async (q: string) =>
      (
        await callJson(
          `/prod/search_video_list?organization_key=${mine.organizationKey}&searchString=${q}`,
          { headers: { "X-Service-Sync-Code": mine.syncCode } },
        )
      ).body.data.map((r: { content_key: string }) => r.content_key);
    expect(await found("zqx")).toEqual([key]); // 17 words: the prefix query
    expect(await found("zqxq")).toEqual([key]); // one word: written out
    expect(await found("zqxz")).toEqual([]); // no word of the index
  });

  it("ranks a description that repeats the word above a title that has it once, unless there are too many matches", async () => {
    const mine = await createOrg();
    const inTitle = await publishVideo(mine, mp4, { title: "An old quokka", description: "" });
    const inDescription = await publishVideo(mine, mp4, {
      title: "Island life",
      description: "quokka quokka quokka",
    });
    const order = async (candidates: number) => {
      const ctx = createExecutionContext();
      const req = new Request(
        `${ORIGIN}/prod/search_video_list?organization_key=${mine.organizationKey}&searchString=quokka&limit=${candidates + 10}`,
        {
          headers: { "X-Service-Sync-Code": mine.syncCode },
        },
      );
      const res = await worker.fetch(
        req,
        { ...env, SEARCH_RANK_CANDIDATES: String(candidates) },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return ((await res.json()) as { data: { content_key: string }[] }).data.map(
        (r) => r.content_key,
      );
    };
    // Both ranked: bm25 weighs the three occurrences above the title's one.
    expect(await order(2)).toEqual([inDescription, inTitle]);
    // More matches than candidates: the title first, though it is the older video.
    expect(await order(1)).toEqual([inTitle, inDescription]);
  });

  it("requires at least 3 characters", async () => {
    for (const q of ["searchString=ab", "searchString=%20%20ab%20", ""]) {
      const { res, body } = await callJson(
        `/prod/search_video_list?organization_key=${org.organizationKey}&${q}`,
        { headers: sync() },
      );
      expect(res.status).toBe(400);
      expect(body.status).toBe("KO");
      expect(body.error).toMatch(/searchString/);
    }
  });
});

describe("E15 search_video_feed", () => {
  it("searches a feed's videos (public) with syndications and translations", async () => {
    const feed = await writeJson(org, "POST", "/v2/feeds", {
      name: "T1",
      configuration: { tags: ["t1"] },
    });
    const { res, body } = await callJson(
      `/search_video_feed?feed=${feed.body.feed_id}&searchString=story`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toMatch(/^public/);
    expect(body.data.map((r: any) => r.content_key)).toEqual([k.s1]);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "content_key",
        "created_date",
        "description",
        "duration",
        "isLive",
        "removed",
        "service_categories",
        "syndications",
        "thumbnail",
        "title",
        "translations",
      ].sort(),
    );
    expect(body.data[0].translations).toEqual([
      { language: "fr", title: "Histoire", description: "" },
    ]);
    expect(body.data[0].syndications).toEqual([]);
    const short = await callJson(`/search_video_feed?feed=${feed.body.feed_id}&searchString=st`);
    expect(short.res.status).toBe(400);
    const unknown = await callJson(`/search_video_feed?feed=nosuchfeed&searchString=story`);
    expect(unknown.res.status).toBe(404);
  });

  it("leaves out videos whose syndication windows are all closed", async () => {
    const feed = await writeJson(org, "POST", "/v2/feeds", { name: "Stories" });
    const hour = 3600_000;
    await admin(`/admin/videos/${k.s2}`, "PATCH", {
      syndications: [
        {
          start_time: new Date(Date.now() - 2 * hour).toISOString(),
          stop_time: new Date(Date.now() - hour).toISOString(),
        },
      ],
    });
    try {
      const { body } = await callJson(
        `/search_video_feed?feed=${feed.body.feed_id}&searchString=story`,
      );
      expect(body.data.map((r: any) => r.content_key).sort()).toEqual(names("s1", "s5"));
    } finally {
      // s2 without windows again, whatever happened, for the other tests.
      await admin(`/admin/videos/${k.s2}`, "PATCH", { syndications: [] });
    }
  });
});

describe("E16 get_videos", () => {
  it("lists with start/limit, content_key and the private name flags", async () => {
    const base = `/get_videos?organization_key=${org.organizationKey}`;
    const all = await callJson(base, { headers: sync() });
    expect(all.body).toMatchObject({ count: 5, status: "ok", message: "ok" });
    expect(all.body.data.map((r: any) => r.content_key)).toEqual([k.s5, k.s4, k.s3, k.s2, k.s1]);
    expect(Object.keys(all.body.data[0]).sort()).toEqual([
      "content_key",
      "created_date",
      "description",
      "isLive",
      "thumbnail",
      "title",
    ]);
    const paged = await callJson(`${base}&start=1&limit=2`, { headers: sync() });
    expect(paged.body.count).toBe(5);
    expect(paged.body.data.map((r: any) => r.content_key)).toEqual([k.s4, k.s3]);
    const one = await callJson(
      `${base}&content_key=${k.s4}&start=3&limit=1&privateTags=1&privateCategories=1`,
      { headers: sync() },
    );
    expect(one.body.data).toEqual([
      expect.objectContaining({ content_key: k.s4, privateTag: ["t1", "t2"], privateCategory: [] }),
    ]);
    expect((await callJson(`${base}&limit=1001`, { headers: sync() })).res.status).toBe(400);
    expect((await callJson(`${base}&ownVideos=1`, { headers: sync() })).body.count).toBe(5);
  });
});

describe("feed definitions", () => {
  it("creates, lists, updates and deletes feeds of the caller's organization only", async () => {
    const created = await writeJson(org, "POST", "/v2/feeds/", {
      name: "Mine",
      configuration: { categories: ["c1"] },
    });
    expect(created.res.status).toBe(200);
    expect(created.body).toEqual({
      feed_id: expect.stringMatching(/^[A-Za-z0-9]{12}$/),
      name: "Mine",
      configuration: { categories: ["c1"], tags: [], events: [] },
    });
    const id = created.body.feed_id;
    const listed = await writeJson(org, "GET", "/v2/feeds");
    expect(listed.body.feeds).toContainEqual(created.body);
    expect((await writeJson(other, "GET", "/v2/feeds")).body.feeds).not.toContainEqual(
      created.body,
    );
    const updated = await writeJson(org, "PUT", `/v2/feeds/${id}`, {
      name: "Renamed",
      configuration: { tags: ["t2"] },
    });
    expect(updated.body).toEqual({
      feed_id: id,
      name: "Renamed",
      configuration: { categories: [], tags: ["t2"], events: [] },
    });
    expect((await writeJson(other, "PUT", `/v2/feeds/${id}`, { name: "Stolen" })).res.status).toBe(
      404,
    );
    expect((await writeJson(other, "DELETE", `/v2/feeds/${id}`)).res.status).toBe(404);
    const bad = await writeJson(org, "POST", "/v2/feeds", { configuration: { tags: "t1" } });
    expect(bad.res.status).toBe(400);
    expect(bad.body.status).toBe("KO");
    expect(bad.body.error).toMatch(/name is required/);
    expect((await callJson("/v2/feeds", { method: "POST", body: "{}" })).res.status).toBe(401);
    const deleted = await writeJson(org, "DELETE", `/v2/feeds/${id}`);
    expect(deleted.body.name).toBe("Renamed");
    expect((await writeJson(org, "GET", `/v2/feeds/${id}`)).res.status).toBe(404);
  });
});
