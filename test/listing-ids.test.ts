// Deep pages from the ids an isolate kept (src/domain/catalog/listing-ids.ts): the same pages as
// reading the listing, for own, network and filtered listings; one query of records once kept;
// a write, a bookmark and the age bound each make the listing be read again.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  publishVideo,
  readHeaders,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
let a: TestOrg; // in a network, with the network entitlement
let b: TestOrg; // its peer
let bust = 0;
let renamed = ""; // a video of a's, renamed before each test
let bookmark = ""; // a D1 bookmark: a request carrying one reads the listing itself
let network = ""; // a's and b's network

/** E16 of `a`, never from the edge cache (a parameter the worker ignores makes a new key). */
async function getVideos(query: string, headers: Record<string, string> = {}) {
  const { res, body } = await callJson(
    `/get_videos?organization_key=${a.organizationKey}&${query}&_cb=${++bust}`,
    { headers: readHeaders(a, headers) },
  );
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get("X-Edge-Cache")).not.toBe("hit");
  return {
    keys: (body.data as { content_key: string }[]).map((v) => v.content_key),
    body,
    cost: d1Cost(res),
    res,
  };
}

beforeAll(async () => {
  network = `netIds${Date.now()}`;
  a = await createOrg({ entitlements: ["network"], network });
  b = await createOrg({ network });
  for (let i = 0; i < 4; i++) {
    renamed = await publishVideo(a, mp4, {
      title: `own ${i}`,
      description: `a clip, number ${i}`,
      tags: i % 2 ? ["odd"] : [],
    });
    const peer = await publishVideo(b, mp4, { title: `peer ${i}`, tags: i % 2 ? ["odd"] : [] });
    const open = await admin(`/admin/videos/${peer}`, "PATCH", {
      syndications: [
        { start_time: new Date(Date.now() - 3600_000).toISOString(), stop_time: null, geos: [] },
      ],
    });
    expect(open.res.status, JSON.stringify(open.body)).toBe(200);
  }
});

// A write of a's before each test that can change its listings (a custom field, which E6
// filters on, with the title): its catalog and listing versions move on, so no test starts from
// ids another one kept.
beforeEach(async () => {
  const e3 = await callJson(`/v2/content?contentKey=${renamed}`, { headers: writeHeaders(a) });
  const write = await writeJson(a, "PUT", "/v2/content", {
    ...e3.body,
    title: `renamed ${++bust}`,
    customFields: [{ round: bust }],
  });
  expect(write.res.status).toBe(200);
  bookmark = write.res.headers.get("X-D1-Bookmark")!;
});

/** The listing read as it is (a bookmark: no kept ids used, none kept). */
const readItself = (query: string) => getVideos(query, { "X-D1-Bookmark": bookmark });

afterEach(() => {
  vi.useRealTimers();
});

describe("deep pages from kept ids", () => {
  it("are the listing's pages, own and network merged; once kept, a page is one query of its records", async () => {
    const itself = await readItself("limit=100");
    expect(itself.keys).toHaveLength(8);
    // Past the end before any ids are kept: counted, nothing listed (OFFSET would read every row).
    const pastFirst = await getVideos("start=50&limit=3");
    expect(pastFirst.body).toMatchObject({ count: 8, data: [] });
    expect(pastFirst.cost.rowsRead).toBeLessThan(itself.cost.rowsRead);
    const all = await getVideos("limit=100"); // reads the ids (to 100: all eight) and keeps them
    expect(all.body).toEqual(itself.body);
    expect(all.body.count).toBe(8);

    const first = await getVideos("start=2&limit=2");
    expect(first.keys).toEqual(all.keys.slice(2, 4));
    expect(first.body).toEqual((await readItself("start=2&limit=2")).body);
    expect(first.cost.queries).toBeLessThan(all.cost.queries);
    expect(first.cost.rowsRead).toBeLessThan(all.cost.rowsRead);
    // Its ids, its rows (read with the first) and the network's members all kept: no D1 at all.
    expect(first.cost.queries).toBe(0);
    // The merged first page too, at another size.
    const top = await getVideos("limit=3");
    expect(top.keys).toEqual(all.keys.slice(0, 3));
    expect(top.cost.queries).toBe(first.cost.queries);

    // Every page, deeper than the ids kept so far (read again twice as deep), then past the end.
    const paged: string[] = [];
    for (let start = 0; start < 8; start += 3) {
      const page = await getVideos(`start=${start}&limit=3`);
      expect(page.body.count).toBe(8);
      paged.push(...page.keys);
    }
    expect(paged).toEqual(all.keys);
    const past = await getVideos("start=50&limit=3");
    expect(past.body).toMatchObject({ count: 8, data: [] });
    // Own videos only: another listing, kept apart.
    const own = await readItself("ownVideos=1&limit=100");
    expect((await getVideos("ownVideos=1&start=1&limit=2")).keys).toEqual(own.keys.slice(1, 3));
  });

  it("are read twice as deep each time a page passes them: walking every page reads them a few times, not once per page", async () => {
    const all = await readItself("limit=100");
    const costs: number[] = [];
    for (let start = 1; start < 8; start++) {
      const page = await getVideos(`start=${start}&limit=1`);
      expect(page.keys).toEqual(all.keys.slice(start, start + 1));
      costs.push(page.cost.queries);
    }
    // Ids read to 2 (start=1), to 4 (start=2), to 8 (start=4): three pages of seven read the listing.
    const kept = Math.min(...costs);
    expect(costs.map((q) => q > kept)).toEqual([true, true, false, true, false, false, false]);
  });

  it("keep the plain first page as it was read (one round trip), then answer it from memory until a write", async () => {
    const e6 = async (query: string) => {
      const { res, body } = await callJson(`/v2/videos/?${query}&_cb=${++bust}`, {
        headers: readHeaders(a),
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return {
        titles: (body.data as { title: string }[]).map((v) => v.title),
        count: body.count as number,
        cost: d1Cost(res),
      };
    };
    const first = await e6("page=1&pageSize=3");
    expect(first.cost.queries).toBeGreaterThan(0);
    const again = await e6("page=1&pageSize=3");
    expect(again).toEqual({ ...first, cost: { rowsRead: 0, rowsWritten: 0, queries: 0 } });
    // A smaller first page and the next one within them: from memory too.
    expect((await e6("page=1&pageSize=2")).cost.queries).toBe(0);
    const e3 = await callJson(`/v2/content?contentKey=${renamed}`, { headers: writeHeaders(a) });
    await writeJson(a, "PUT", "/v2/content", { ...e3.body, title: "renamed again" });
    const after = await e6("page=1&pageSize=3");
    expect(after.titles[0]).toBe("renamed again");
    expect(after.cost.queries).toBeGreaterThan(0);
  });

  it("hold for a filtered E6 listing, count included", async () => {
    const list = async (query: string) => {
      const { res, body } = await callJson(`/v2/videos/?${query}&_cb=${++bust}`, {
        headers: readHeaders(a, { "CF-IPCountry": "US" }),
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return {
        keys: (body.data as { contentKey: string }[]).map((v) => v.contentKey),
        count: body.count as number,
      };
    };
    const all = await list("tags=odd&networkVideos=1");
    expect(all.keys).toHaveLength(4);
    for (let round = 0; round < 2; round++) {
      expect(await list("tags=odd&networkVideos=1&page=2&pageSize=1")).toEqual({
        keys: all.keys.slice(1, 2),
        count: 4,
      });
      expect(await list("tags=odd&networkVideos=1&page=2&pageSize=3")).toEqual({
        keys: all.keys.slice(3, 4),
        count: 4,
      });
    }
  });

  it("move on with a write of the organization", async () => {
    await getVideos("start=2&limit=2"); // kept
    const added = await publishVideo(a, mp4, { title: "newest" });
    const all = await readItself("limit=100");
    expect(all.keys[0]).toBe(added);
    expect((await getVideos("start=2&limit=2")).keys).toEqual(all.keys.slice(2, 4));
    await writeJson(a, "DELETE", `/v2/content?contentKey=${added}`);
    const after = await readItself("limit=100");
    expect(after.keys).not.toContain(added);
    expect((await getVideos("start=2&limit=2")).keys).toEqual(after.keys.slice(2, 4));
  });

  it("outlive an edit of a video's text alone (its page reads the rows again, not the ids), not one of its tags", async () => {
    const edit = async (changes: Record<string, unknown>) => {
      const e3 = await callJson(`/v2/content?contentKey=${renamed}`, {
        headers: writeHeaders(a),
      });
      const write = await writeJson(a, "PUT", "/v2/content", { ...e3.body, ...changes });
      expect(write.res.status, JSON.stringify(write.body)).toBe(200);
      return write.res.headers.get("X-D1-Bookmark")!;
    };
    const titles = (body: { data: { title: string }[] }) => body.data.map((v) => v.title);
    const read = await getVideos("start=0&limit=8");
    expect((await getVideos("start=0&limit=8")).cost.queries).toBe(0);

    // A new title: the same videos in the same order, the new title shown; one query (the rows).
    bookmark = await edit({ title: "text alone" });
    const after = await getVideos("start=0&limit=8");
    expect(after.keys).toEqual(read.keys);
    expect(after.body).toEqual((await readItself("start=0&limit=8")).body);
    expect(titles(after.body)).toContain("text alone");
    expect(after.cost.queries).toBe(1);

    // A tag taken off: the filtered listing kept before holds one video fewer at once.
    const odd = async () => {
      const { res, body } = await callJson(`/v2/videos/?tags=odd&_cb=${++bust}`, {
        headers: readHeaders(a),
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return {
        keys: (body.data as { contentKey: string }[]).map((v) => v.contentKey),
        count: body.count,
      };
    };
    const before = await odd();
    expect(before.keys).toContain(renamed);
    await edit({ tags: [] });
    const untagged = await odd();
    expect(untagged).toEqual({
      keys: before.keys.filter((k) => k !== renamed),
      count: before.count - 1,
    });
    await edit({ tags: ["odd"] });
    expect(await odd()).toEqual(before);
  });

  it("show a peer's write to a video shown to the network (its row read again)", async () => {
    const all = await readItself("limit=100");
    const titles = (body: { data: { content_key: string; title: string }[] }) =>
      body.data.map((v) => v.title);
    const deep = await getVideos("start=1&limit=7");
    expect(deep.keys).toEqual(all.keys.slice(1));
    const peerVideo = (all.body.data as { content_key: string; title: string }[])
      .slice(1)
      .find((v) => v.title.startsWith("peer"))!;
    const e3 = await callJson(`/v2/content?contentKey=${peerVideo.content_key}`, {
      headers: writeHeaders(b),
    });
    expect(
      (
        await writeJson(b, "PUT", "/v2/content", {
          ...e3.body,
          title: `${peerVideo.title} renamed`,
        })
      ).res.status,
    ).toBe(200);
    const after = await getVideos("start=1&limit=7");
    expect(titles(after.body)).toEqual(
      titles(deep.body).map((t) => (t === peerVideo.title ? `${t} renamed` : t)),
    );
    await writeJson(b, "PUT", "/v2/content", { ...e3.body, title: peerVideo.title });
  });

  it("show a new member's video once it joins the network", async () => {
    const before = await getVideos("start=1&limit=20");
    const c = await createOrg();
    const video = await publishVideo(c, mp4, { title: "newcomer", tags: ["odd"] });
    const open = await admin(`/admin/videos/${video}`, "PATCH", {
      syndications: [
        { start_time: new Date(Date.now() - 3600_000).toISOString(), stop_time: null, geos: [] },
      ],
    });
    expect(open.res.status, JSON.stringify(open.body)).toBe(200);
    expect((await getVideos("start=1&limit=20")).keys).toEqual(before.keys); // not a member yet
    const joined = await admin(`/admin/organizations/${c.organizationKey}`, "PATCH", { network });
    expect(joined.res.status, JSON.stringify(joined.body)).toBe(200);
    expect((await readItself("limit=100")).keys).toContain(video);
    expect((await getVideos("start=0&limit=20")).keys).toContain(video);
    // Filters reach the members' names through the member list (kept per network version).
    const odd = await callJson(`/v2/videos/?tags=odd&networkVideos=1&_cb=${++bust}`, {
      headers: readHeaders(a),
    });
    expect((odd.body.data as { contentKey: string }[]).map((v) => v.contentKey)).toContain(video);
    await admin(`/admin/organizations/${c.organizationKey}`, "PATCH", { network: null });
    expect((await getVideos("start=0&limit=20")).keys).not.toContain(video);
  });

  it("are not used by a request reading its own writes (a bookmark)", async () => {
    const read = await getVideos("start=1&limit=2");
    const kept = await getVideos("start=1&limit=2");
    expect(kept.cost.queries).toBeLessThan(read.cost.queries);
    const own = await readItself("start=1&limit=2");
    expect(own.keys).toEqual(kept.keys);
    expect(own.cost.queries).toBeGreaterThan(kept.cost.queries);
  });

  it("are kept 60 s at most", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    const read = await getVideos("start=3&limit=1");
    vi.advanceTimersByTime(59_000);
    const kept = await getVideos("start=3&limit=1");
    expect(kept.cost.queries).toBeLessThan(read.cost.queries);
    vi.advanceTimersByTime(1_000);
    const again = await getVideos("start=3&limit=1");
    expect(again.keys).toEqual(read.keys);
    // The listing read again (a credential lookup, 30 s in the isolate, may come or go besides).
    expect(again.cost.queries).toBeGreaterThanOrEqual(read.cost.queries - 1);
    expect(again.cost.queries).toBeGreaterThan(kept.cost.queries + 1);
  });

  it("hold for E14, E13 and E15 searches, which follow a write and a feed's changes", async () => {
    const search = async (path: string, headers: Record<string, string> = readHeaders(a)) => {
      const { res, body } = await callJson(`${path}&_cb=${++bust}`, { headers });
      expect(res.status, JSON.stringify(body)).toBe(200);
      const data = body.data as { content_key: string; title: string }[];
      return {
        keys: data.map((v) => v.content_key),
        titles: data.map((v) => v.title),
        cost: d1Cost(res),
      };
    };
    const e14 = (query: string, headers?: Record<string, string>) =>
      search(
        `/prod/search_video_list?organization_key=${a.organizationKey}&searchString=clip&${query}`,
        headers,
      );
    const all = await e14("limit=100", readHeaders(a, { "X-D1-Bookmark": bookmark }));
    expect(all.keys).toHaveLength(4);
    const read = await e14("start=1&limit=2");
    expect(read.keys).toEqual(all.keys.slice(1, 3));
    const kept = await e14("start=0&limit=3"); // within the ids read to 3
    expect(kept.keys).toEqual(all.keys.slice(0, 3));
    expect(kept.cost.queries).toBeLessThan(read.cost.queries);
    // Its rows kept too: the same page again reads nothing from D1.
    const again = await e14("start=0&limit=3");
    expect(again.keys).toEqual(kept.keys);
    expect(again.cost.queries).toBe(0);
    // A write: the last video gets the word in its title too, which ranks it first, with its
    // new title (its row read again under the new version). A video the write did not touch
    // keeps its title.
    const e3 = await callJson(`/v2/content?contentKey=${all.keys[3]}`, {
      headers: writeHeaders(a),
    });
    await writeJson(a, "PUT", "/v2/content", { ...e3.body, title: "zebra clip" });
    const after = await e14("start=0&limit=3");
    expect(after.keys[0]).toBe(all.keys[3]);
    expect(after.titles[0]).toBe("zebra clip");
    expect(after.titles.slice(1)).toEqual(all.titles.slice(0, 2));

    // E13: the same, for metadata criteria (tags=odd), and a write that tags one more video.
    const e13 = (query: string, headers?: Record<string, string>) =>
      search(
        `/prod/search_metadata?organization_key=${a.organizationKey}&privateTags=odd&${query}`,
        headers,
      );
    const odd = await e13("limit=100", readHeaders(a, { "X-D1-Bookmark": bookmark }));
    expect(odd.keys).toHaveLength(2);
    const oddRead = await e13("start=1&limit=1");
    expect(oddRead.keys).toEqual(odd.keys.slice(1));
    const oddKept = await e13("start=0&limit=1");
    expect(oddKept.keys).toEqual(odd.keys.slice(0, 1));
    expect(oddKept.cost.queries).toBeLessThan(oddRead.cost.queries);
    // The newest untagged video lies between the two (own 3, own 2, own 1, own 0, newest first).
    const newestFirst = (await readItself("ownVideos=1&limit=100")).keys;
    const untagged = newestFirst.find((key) => !odd.keys.includes(key))!;
    const e3u = await callJson(`/v2/content?contentKey=${untagged}`, { headers: writeHeaders(a) });
    await writeJson(a, "PUT", "/v2/content", { ...e3u.body, tags: ["odd"] });
    expect((await e13("start=0&limit=2")).keys).toEqual(
      newestFirst.filter((key) => [...odd.keys, untagged].includes(key)).slice(0, 2),
    );

    // E15: the feed of a's "odd" videos (three now, all matching "clip").
    const feed = await writeJson(a, "POST", "/v2/feeds", {
      name: "Odd",
      configuration: { tags: ["odd"] },
    });
    expect(feed.res.status, JSON.stringify(feed.body)).toBe(200);
    const e15 = (query: string) =>
      search(`/search_video_feed?feed=${feed.body.feed_id}&searchString=clip&${query}`, {});
    const members = await e15("limit=100");
    expect(members.keys).toHaveLength(3);
    expect((await e15("start=1&limit=2")).keys).toEqual(members.keys.slice(1));
    const keptFeed = await e15("start=1&limit=1");
    expect(keptFeed.keys).toEqual(members.keys.slice(1, 2));
    expect(keptFeed.cost.queries).toBeLessThan(members.cost.queries);
    // The feed's definition changes (every tag): its version moves, the search follows.
    expect(
      (
        await writeJson(a, "PUT", `/v2/feeds/${feed.body.feed_id}`, {
          name: "Odd",
          configuration: {},
        })
      ).res.status,
    ).toBe(200);
    expect((await e15("start=1&limit=100")).keys).toHaveLength(3); // four members now
  });
});
