// Cold listings read about what they return (db/listing-plan.ts): a name's page walks that
// name's own listing index (content_labels_listing_idx), searchString's `,` groups are one index
// query. On a catalog of 1,200 videos written into D1 here (the triggers keep labels, links and
// the text index as the write paths do), every filter the API offers is answered as a plain
// reading of the catalog says (the oracle below, in JS), and the D1 rows each cold page read
// (Server-Timing) stay within what it returns plus its count.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../scripts/lib/prng.mjs";
import { callJson, createOrg, d1Cost, readHeaders, type TestOrg } from "./helpers";

const VIDEOS = 1200;
const TAGS = ["common", "half", "tenth", "rare", "other1", "other2"];
const CATEGORIES = ["News", "Sport", "Music"];
const WORDS = ["river", "mountain", "harbour", "festival", "market", "bridge"];

interface Video {
  id: number;
  key: string;
  publishedAt: string;
  tags: string[];
  categories: string[];
  title: string;
}

let org: TestOrg;
const videos: Video[] = [];

beforeAll(async () => {
  org = await createOrg();
  const orgId = (await env.DB.prepare("select id from organizations where organization_key = ?")
    .bind(org.organizationKey)
    .first("id")) as number;
  const random = mulberry32(7);
  const share: Record<string, number> = {
    common: 0.6,
    half: 0.5,
    tenth: 0.1,
    rare: 0.01,
    other1: 0.3,
    other2: 0.3,
  };
  const base = Date.parse("2026-01-01T00:00:00Z");
  const rows: unknown[][] = [];
  for (let i = 0; i < VIDEOS; i++) {
    const tags = TAGS.filter((t) => random() < share[t]!);
    const categories = CATEGORIES.filter(() => random() < 0.3);
    const title = WORDS.filter(() => random() < 0.35).join(" ") || "plain";
    // Some videos published at the same instant: the order falls to the id.
    const publishedAt = new Date(base + Math.floor(i / 3) * 60_000).toISOString();
    const key = `cl${orgId}x${i}`;
    rows.push([orgId, key, title, JSON.stringify(tags), JSON.stringify(categories), publishedAt]);
    videos.push({ id: 0, key, publishedAt, tags, categories, title });
  }
  for (let i = 0; i < rows.length; i += 100) {
    await env.DB.batch(
      rows.slice(i, i + 100).map((r) =>
        env.DB.prepare(
          `insert into contents (organization_id, content_key, title, tags, categories, media_key, content_size, chunk_size, created_at, updated_at, status, published_at)
           values (?1, ?2, ?3, ?4, ?5, ?2, 1, 1, ?6, ?6, 'available', ?6)`,
        ).bind(...r),
      ),
    );
  }
  const ids = (
    await env.DB.prepare("select id, content_key from contents where organization_id = ?")
      .bind(orgId)
      .all<{ id: number; content_key: string }>()
  ).results;
  const byKey = new Map(ids.map((r) => [r.content_key, r.id]));
  for (const v of videos) v.id = byKey.get(v.key)!;
  // The names as the write paths link them (db/content.ts labelStatements).
  await env.DB.prepare(
    `insert into labels (organization_id, kind, name, videos)
     select ?1, 'tag', value, 0 from json_each(?2) union all select ?1, 'category', value, 0 from json_each(?3)`,
  )
    .bind(orgId, JSON.stringify(TAGS), JSON.stringify(CATEGORIES))
    .run();
  for (let i = 0; i < videos.length; i += 100) {
    await env.DB.batch(
      videos.slice(i, i + 100).map((v) =>
        env.DB.prepare(
          `insert into content_labels (label_id, content_id, listable)
           select l.id, c.id, 0 from labels l, contents c
           where l.organization_id = ?1 and c.id = ?2
             and ((l.kind = 'tag' and l.name in (select value from json_each(c.tags)))
               or (l.kind = 'category' and l.name in (select value from json_each(c.categories))))`,
        ).bind(orgId, v.id),
      ),
    );
  }
});

const newestFirst = (a: Video, b: Video) =>
  a.publishedAt === b.publishedAt ? b.id - a.id : a.publishedAt < b.publishedAt ? 1 : -1;

/** `a,b|c` = a and (b or c), as E6 reads its names. */
const allOfAny = (value: string) => value.split(",").map((g) => g.split("|"));
const hasWordPrefix = (title: string, term: string) =>
  title.split(" ").some((w) => w.startsWith(term.toLowerCase()));

function oracle(params: Record<string, string>, page: number, pageSize: number) {
  const matching = videos
    .filter(
      (v) =>
        (!params.tags || allOfAny(params.tags).every((g) => g.some((t) => v.tags.includes(t)))) &&
        (!params.categories ||
          allOfAny(params.categories).every((g) => g.some((c) => v.categories.includes(c)))) &&
        (!params.searchString ||
          allOfAny(params.searchString).every((g) => g.some((w) => hasWordPrefix(v.title, w)))),
    )
    .sort(newestFirst);
  return {
    count: matching.length,
    keys: matching.slice((page - 1) * pageSize, page * pageSize).map((v) => v.key),
  };
}

let cb = 0;
/** A cold page (each test asks listings no other asked: nothing kept answers it). */
async function coldPage(params: Record<string, string>, page: number, pageSize: number) {
  const query = new URLSearchParams({
    ...params,
    page: String(page),
    pageSize: String(pageSize),
    _cb: String(cb++),
  });
  const { res, body } = await callJson(`/v2/videos/?${query}`, { headers: readHeaders(org) });
  expect(res.status, JSON.stringify(body)).toBe(200);
  return {
    count: body.count as number,
    keys: (body.data as { contentKey: string }[]).map((v) => v.contentKey),
    rowsRead: d1Cost(res).rowsRead,
  };
}

/** A name's videos (its listable links). */
const tagged = (name: string) => videos.filter((v) => v.tags.includes(name)).length;
const inCategory = (name: string) => videos.filter((v) => v.categories.includes(name)).length;

describe("every filter answers as the catalog says, reading about what it returns", () => {
  // [filter, page, pageSize, most rows read]. The floor of a page is its ids (up to the page's
  // end, per name walked) and its records (D1 reads two rows per record fetched by id), plus
  // what its exact count must read: a name's counter (1 row); the smaller name's links for
  // "any of two" (each checked against the other's); the smaller name's links for "all of two";
  // the matches for words. A dozen rows more are the lookups (organization, counters, labels,
  // the vocabulary). The bounds below are that floor, times 2 where a join or a check doubles it.
  const lookups = 15;
  const records = (pageSize: number) => 2 * pageSize;
  const cases: [Record<string, string>, number, number, (count: number) => number][] = [
    // One name: the label's counter, its listing index.
    [{ tags: "tenth" }, 1, 10, () => 10 + records(10) + lookups],
    [{ tags: "common" }, 1, 10, () => 10 + records(10) + lookups],
    [{ tags: "rare" }, 1, 10, (n) => n + records(n) + lookups],
    // A deep page: the ids up to it, the page's records.
    [{ tags: "tenth" }, 8, 10, () => 80 + records(10) + lookups],
    [{ tags: "half" }, 30, 10, () => 300 + records(10) + lookups],
    // Any of two names: each name walked to the page's end; the count checks the smaller's links.
    [{ tags: "tenth|rare" }, 1, 10, () => 2 * 10 + records(10) + 2 * tagged("rare") + lookups],
    [{ tags: "tenth|rare" }, 4, 10, () => 2 * 40 + records(10) + 2 * tagged("rare") + lookups],
    [
      { categories: "Sport|Music" },
      3,
      10,
      () => 2 * 30 + records(10) + 2 * Math.min(inCategory("Sport"), inCategory("Music")) + lookups,
    ],
    // All of two names: the smaller's links checked against the other's, for the page and the count.
    [{ tags: "tenth,other1" }, 1, 10, () => 2 * 2 * tagged("tenth") + records(10) + lookups],
    [{ tags: "common,half" }, 2, 10, () => 2 * tagged("half") + 2 * 2 * 20 + records(10) + lookups],
    [
      { categories: "News,Sport" },
      1,
      10,
      () => 2 * 2 * Math.min(inCategory("News"), inCategory("Sport")) + records(10) + lookups,
    ],
    // Words: the index finds (and counts) what matches every group; the page sorts the matches.
    [{ searchString: "harb" }, 1, 10, (n) => 2 * 2 * n + records(10) + lookups],
    [{ searchString: "river,festival" }, 1, 10, (n) => 8 * n + records(10) + lookups],
    [{ searchString: "river,festival,market" }, 2, 10, (n) => 8 * n + records(10) + lookups],
    [{ searchString: "bridge|market" }, 1, 10, (n) => 2 * 2 * n + records(10) + lookups],
    // Names and words together: the name's links, each checked on its row and in the index.
    [
      { tags: "tenth", searchString: "mountain" },
      1,
      10,
      () => 3 * 2 * tagged("tenth") + records(10) + lookups,
    ],
  ];
  for (const [params, page, pageSize, most] of cases) {
    it(`${new URLSearchParams(params)} page ${page} of ${pageSize}`, async () => {
      const got = await coldPage(params, page, pageSize);
      const want = oracle(params, page, pageSize);
      expect({ count: got.count, keys: got.keys }).toEqual(want);
      expect(got.rowsRead, `rows read for ${want.count} matches`).toBeLessThanOrEqual(
        most(want.count),
      );
    });
  }
});

describe("E13 (search_metadata)", () => {
  // A name's first page is read with its records from the name's listing index, in one query
  // after the lookups (which go in one batch); a deeper page reads the ids, then the records.
  it("reads a cold first page of one name with its records: one query fewer than a deeper page", async () => {
    const e13 = async (query: string) => {
      const { res, body } = await callJson(
        `/prod/search_metadata?organization_key=${org.organizationKey}&${query}&_cb=${cb++}`,
        { headers: readHeaders(org) },
      );
      expect(res.status, JSON.stringify(body)).toBe(200);
      return { keys: (body.data as { content_key: string }[]).map((v) => v.content_key), res };
    };
    await e13("privateTags=rare&limit=1"); // the credential's lookup, kept from here on
    const want = videos.filter((v) => v.tags.includes("tenth")).sort(newestFirst);
    const first = await e13("privateTags=tenth&limit=10");
    expect(first.keys).toEqual(want.slice(0, 10).map((v) => v.key));
    const deeper = await e13("privateTags=tenth&start=10&limit=10");
    expect(deeper.keys).toEqual(want.slice(10, 20).map((v) => v.key));
    const [firstCost, deeperCost] = [d1Cost(first.res), d1Cost(deeper.res)];
    expect(firstCost.queries).toBe(deeperCost.queries - 1);
    expect(firstCost.rowsRead).toBeLessThanOrEqual(10 + 2 * 10 + 15);
  });
});
