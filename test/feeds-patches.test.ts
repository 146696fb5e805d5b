// A change of a video patches its entry in the files of the feeds that hold it (or held it)
// instead of rebuilding them (src/domain/feeds/patches.ts). The oracle is the full rebuild: after
// every patch, rebuilding every feed from its query must find each file as the patch left it
// (nothing written, the bytes the same). The changes are made in D1 by the tests and the feeds
// marked as a write marks them (markFeedsOfVideos), then a pass runs on the tests' own deps, so
// each test chooses its clock and FEED_MAX_VIDEOS (4: feeds are full, so a member leaving one
// brings the next from past the last entry). The last tests go through E4 and the real queue.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { mulberry32 } from "../scripts/lib/prng.mjs";
import { createDb } from "../src/db/client";
import { listFeeds, markFeedsDirty, updateFeed } from "../src/db/feeds";
import type { Feed } from "../src/db/schema";
import { backgroundDeps } from "../src/domain/background";
import { runFeedCron } from "../src/domain/feeds/cron";
import { markFeedsOfVideos, type VideoNames } from "../src/domain/feeds/membership";
import { rebuildDirtyFeeds, rebuildFeeds } from "../src/domain/feeds/publisher";
import { rebuildRequested } from "../src/domain/feeds/rebuild-requests";
import { unlimitedBudget } from "../src/domain/feeds/work";
import { feedFileKeys } from "../src/storage/layout";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  publishVideo,
  SETTLED_MS,
  type TestOrg,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
const MAX = 4;
const VIDEOS = 12;

let org: TestOrg;
let organizationId: number;
const keys: string[] = [];
const ids: number[] = [];
const feedIds: Record<string, string> = {};

/** The deps of a pass at `now`, FEED_MAX_VIDEOS 4, and the feed-rebuilds messages it sends. */
function passDeps(now: Date, vars: Record<string, string> = {}) {
  const sent: { body: unknown; delaySeconds?: number }[] = [];
  const { deps } = backgroundDeps(
    { ...env, FEED_MAX_VIDEOS: String(MAX), FEED_PATCH_DELAY_SECONDS: "0", ...vars },
    now,
    Date.now,
    () => {},
  );
  deps.feedRebuilds = {
    send: async (body: unknown, options?: { delaySeconds?: number }) =>
      void sent.push({ body, delaySeconds: options?.delaySeconds }),
  } as unknown as Queue;
  return { deps, sent };
}

const db = () => createDb(env.DB);

/** The organization's feeds as D1 has them now (their recorded hashes current). */
const orgFeeds = (): Promise<Feed[]> => listFeeds(db(), organizationId);

/** Every byte of the organization's feeds' video files, by R2 key. */
async function files(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const feed of await orgFeeds()) {
    for (const key of Object.values(feedFileKeys(feed.feedId))) {
      const object = await env.MEDIA.get(key);
      out.set(key, object ? await object.text() : "(none)");
    }
  }
  return out;
}

/** What a write marks the feeds with: the video's names before and after. */
async function names(contentIds: number[]): Promise<VideoNames[]> {
  const rows = (
    await env.DB.prepare(
      "select id, sub_organization_id, categories, tags, events from contents where id in (select value from json_each(?))",
    )
      .bind(JSON.stringify(contentIds))
      .all<{
        id: number;
        sub_organization_id: number | null;
        categories: string;
        tags: string;
        events: string;
      }>()
  ).results;
  return rows.map((r) => ({
    id: r.id,
    subOrganizationId: r.sub_organization_id,
    categories: JSON.parse(r.categories),
    tags: JSON.parse(r.tags),
    events: JSON.parse(r.events),
  }));
}

/**
 * Changes videos with `change` (SQL on D1) as a write would, marks their feeds as the write's
 * catalogChanged does, and runs one pass at `now`. Returns the pass's result.
 */
async function write(contentIds: number[], change: () => Promise<unknown>, now = new Date()) {
  const before = await names(contentIds);
  await change();
  const after = await names(contentIds);
  const { deps } = passDeps(now);
  // A deleted video is gone after: its names before and its id say which entries go.
  await markFeedsOfVideos(deps.db, organizationId, [...before, ...after], now.toISOString());
  return rebuildDirtyFeeds(deps, unlimitedBudget, organizationId);
}

/**
 * The oracle: every feed rebuilt from its query at `now` writes nothing, so each file is
 * byte for byte what the patches left.
 */
async function expectRebuildFindsFilesAsPatched(now = new Date()) {
  const before = await files();
  const { deps } = passDeps(now);
  const stats = await rebuildFeeds(deps, await orgFeeds());
  expect(stats.patched).toBe(0);
  const after = await files();
  for (const [key, text] of before) expect(after.get(key), key).toBe(text);
  expect(stats.written, "a full rebuild found a file other than the patch wrote").toBe(0);
}

async function sql(query: string, ...values: unknown[]) {
  await env.DB.prepare(query)
    .bind(...values)
    .run();
}

beforeAll(async () => {
  org = await createOrg();
  organizationId = (await env.DB.prepare("select id from organizations where organization_key = ?")
    .bind(org.organizationKey)
    .first("id")) as number;
  for (let i = 0; i < VIDEOS; i++)
    keys.push(
      await publishVideo(org, mp4, {
        title: `video ${i}`,
        tags: i % 3 === 0 ? ["a"] : i % 3 === 1 ? ["a", "b"] : ["b"],
        categories: i % 2 ? ["c"] : [],
        events: i % 4 === 0 ? ["e"] : [],
      }),
    );
  for (const key of keys)
    ids.push(
      (await env.DB.prepare("select id from contents where content_key = ?")
        .bind(key)
        .first("id")) as number,
    );
  for (const [name, configuration] of [
    ["A", { tags: ["a"] }],
    ["B", { tags: ["b"] }],
    ["A or c", { tags: ["a"], categories: ["c"] }],
    ["Events", { events: ["e"] }],
    ["Everything", {}],
  ] as const) {
    const created = await writeJson(org, "POST", "/v2/feeds", { name, configuration });
    expect(created.res.status).toBe(200);
    feedIds[name] = created.body.feed_id;
  }
  // The queue's builds (FEED_MAX_VIDEOS 1000) done, the files are built at 4 videos each.
  await vi.waitFor(
    async () => {
      const busy = await env.DB.prepare(
        "select count(*) as n from feeds where organization_id = ? and (dirty_since is not null or building_until > ?)",
      )
        .bind(organizationId, new Date().toISOString())
        .first("n");
      expect(busy).toBe(0);
    },
    { timeout: SETTLED_MS, interval: 100 },
  );
  const { deps } = passDeps(new Date());
  await rebuildFeeds(deps, await orgFeeds());
});

describe("patched feed files equal a full rebuild's", () => {
  it("a title edit replaces the video's entry in each file that lists it, and nothing else", async () => {
    const target = ids[VIDEOS - 1]!; // the newest: in every full feed that holds it
    const before = await files();
    const pass = await write([target], () =>
      sql(`update contents set title = 'Édité "quoted" \\ title' where id = ?`, target),
    );
    expect(pass.feeds).toBeGreaterThan(0);
    expect(pass.patched, "every marked feed was patched, none rebuilt").toBe(pass.feeds);
    const after = await files();
    const changed = [...after.keys()].filter((k) => after.get(k) !== before.get(k));
    // The legacy and v2 file of each feed holding it; never its metadata.
    expect(changed.length).toBe(2 * pass.feeds);
    expect(changed.some((k) => k.endsWith("metadata.json"))).toBe(false);
    for (const k of changed) expect(after.get(k)).toContain('"Édité \\"quoted\\" \\\\ title"');
    await expectRebuildFindsFilesAsPatched();
  });

  it("a tag change adds the entry where membership began and takes it out where it ended, with the next member from past the last entry", async () => {
    // Video 8 carries b only; feed A (a) lists 10, 9, 7, 6 and has more past its last entry.
    const target = ids[8]!;
    const pass = await write([target], () =>
      sql(`update contents set tags = '["a"]' where id = ?`, target),
    );
    expect(pass.patched).toBe(pass.feeds);
    const a = (await callJson(`/v2/feeds/${feedIds.A}/videos.json`)).body.videos.map(
      (v: any) => v.contentKey,
    );
    expect(a).toContain(keys[8]);
    await expectRebuildFindsFilesAsPatched();
    const back = await write([target], () =>
      sql(`update contents set tags = '["b"]' where id = ?`, target),
    );
    expect(back.patched).toBe(back.feeds);
    const again = (await callJson(`/v2/feeds/${feedIds.A}/videos.json`)).body.videos.map(
      (v: any) => v.contentKey,
    );
    expect(again).not.toContain(keys[8]);
    // A was full: the member after its last entry came in.
    expect(again).toHaveLength(MAX);
    await expectRebuildFindsFilesAsPatched();
  });

  it("random changes (titles, names, service categories, removal, order, windows, deletion) stay equal to the rebuild, step after step", async () => {
    const random = mulberry32(51);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const subset = (xs: readonly string[]) => xs.filter(() => random() < 0.5);
    let now = Date.now();
    let written = 0;
    // The first six videos; the tests after this one change the others.
    const live = ids.slice(0, 6);
    for (let step = 0; step < 24; step++) {
      now += 60_000;
      const at = new Date(now).toISOString();
      const targets = [...new Set([pick(live), pick(live), pick(live)].slice(0, 1 + (step % 3)))];
      const changes = targets.map((id) => {
        const kind = pick([
          "title",
          "tags",
          "categories",
          "service",
          "removed",
          "order",
          "window",
          "events",
        ] as const);
        switch (kind) {
          case "title":
            return () =>
              sql("update contents set title = ? where id = ?", `t${step} ü "${random()}"`, id);
          case "tags":
            return () =>
              sql(
                "update contents set tags = ? where id = ?",
                JSON.stringify(subset(["a", "b", "x"])),
                id,
              );
          case "categories":
            return () =>
              sql(
                "update contents set categories = ? where id = ?",
                JSON.stringify(subset(["c", "d"])),
                id,
              );
          case "events":
            return () =>
              sql(
                "update contents set events = ? where id = ?",
                JSON.stringify(subset(["e", "f"])),
                id,
              );
          case "service":
            return () =>
              sql(
                "update contents set service_categories = ? where id = ?",
                JSON.stringify(subset(["News", "Sports", "Music"])),
                id,
              );
          case "removed":
            return () => sql("update contents set removed = 1 - removed where id = ?", id);
          case "order":
            return () =>
              sql(
                "update contents set published_at = ? where id = ?",
                new Date(now - Math.floor(random() * 30) * 3_600_000).toISOString(),
                id,
              );
          case "window":
            // Closed now (opens in an hour), or no window at all.
            return () =>
              random() < 0.5
                ? sql(
                    "insert into syndications (content_id, name, start_time, stop_time, geos) values (?, 'later', ?, null, '[]')",
                    id,
                    new Date(now + 3_600_000).toISOString(),
                  )
                : sql("delete from syndications where content_id = ?", id);
        }
      });
      if (step === 17) {
        // A video deleted outright (E5): its entries go.
        const gone = targets[0]!;
        changes.splice(0, changes.length, () => sql("delete from contents where id = ?", gone));
        live.splice(live.indexOf(gone), 1);
      }
      const pass = await write(
        targets,
        async () => {
          for (const change of changes) await change();
        },
        new Date(at),
      );
      expect(pass.patched, `step ${step}`).toBe(pass.feeds);
      written += pass.written;
      // Every other step checks with the oracle, so the next patch also starts from a patch's layout.
      if (step % 2 === 1) await expectRebuildFindsFilesAsPatched(new Date(at));
    }
    expect(written, "the steps changed files").toBeGreaterThan(10);
    await expectRebuildFindsFilesAsPatched(new Date(now));
  });
});

describe("when a patch gives way to a rebuild", () => {
  it("a file that is not what its layout says (written by someone else) is rebuilt in full", async () => {
    const feed = (await orgFeeds()).find((f) => f.feedId === feedIds.Everything)!;
    const key = feedFileKeys(feed.feedId).videos;
    await env.MEDIA.put(key, '{"videos":[],"generated_at":"2020-01-01T00:00:00.000Z"}', {
      customMetadata: { contentHash: "another" },
    });
    const target = ids[11]!;
    const pass = await write([target], () =>
      sql("update contents set title = 'after a stray write' where id = ?", target),
    );
    expect(pass.feeds).toBeGreaterThan(pass.patched);
    await expectRebuildFindsFilesAsPatched();
  });

  it("a feed whose definition changes is rebuilt, whatever videos it waited for", async () => {
    const b = (await orgFeeds()).find((f) => f.feedId === feedIds.B)!;
    const now = new Date().toISOString();
    await markFeedsOfVideos(db(), organizationId, await names([ids[7]!]), now);
    const waiting = async () =>
      (await env.DB.prepare("select patch_ids from feeds where id = ?")
        .bind(b.id)
        .first("patch_ids")) as string | null;
    expect(JSON.parse((await waiting())!)).toEqual([ids[7]]);
    await updateFeed(
      db(),
      b.id,
      { name: "B", categories: [], tags: ["b", "half"], events: [] },
      now,
    );
    expect(await waiting()).toBeNull();
    const pass = await rebuildDirtyFeeds(
      passDeps(new Date()).deps,
      unlimitedBudget,
      organizationId,
    );
    expect(pass.feeds).toBe(pass.patched + 1);
    await expectRebuildFindsFilesAsPatched();
  });

  it("the cron's reconcile slice rebuilds in full, whatever the marks", async () => {
    const { deps } = passDeps(new Date(), { FEED_RECONCILE_BATCH: "1000" });
    const report = await runFeedCron(deps, unlimitedBudget);
    expect(report.patched).toBe(0);
    expect(report.reconciled).toBeGreaterThan(0);
  });
});

describe("a burst of changes makes one pass", () => {
  it("a feed waits FEED_PATCH_DELAY_SECONDS from its first change; the changes meanwhile join the list; the pass then patches them all", async () => {
    const delay = { FEED_PATCH_DELAY_SECONDS: "30" };
    const t0 = Date.now();
    const at = (s: number) => new Date(t0 + s * 1000);
    const first = await names([ids[9]!]);
    const { deps: d0 } = passDeps(at(0), delay);
    const started = await markFeedsOfVideos(d0.db, organizationId, first, at(0).toISOString());
    expect(started.patch).toBe(true);
    expect(started.waitStarted).toBe(true);
    await sql("update contents set title = 'burst 1' where id = ?", ids[9]);
    const second = await names([ids[10]!]);
    const { deps: d5 } = passDeps(at(5), delay);
    await markFeedsOfVideos(d5.db, organizationId, second, at(5).toISOString());
    // Feed Everything holds both: it waits from the first change, with both videos to patch.
    const everything = await env.DB.prepare(
      "select patch_ids, waiting_since from feeds where feed_id = ?",
    )
      .bind(feedIds.Everything)
      .first<{ patch_ids: string; waiting_since: string }>();
    expect(JSON.parse(everything!.patch_ids).sort()).toEqual([ids[9], ids[10]].sort());
    expect(everything!.waiting_since).toBe(at(0).toISOString());
    await sql("update contents set title = 'burst 2' where id = ?", ids[10]);

    // A message 10 s in: nothing is due; it asks again for when the first mark is 30 s old.
    const early = passDeps(at(10), delay);
    const none = await rebuildRequested(early.deps, organizationId, false, unlimitedBudget);
    expect(none.feeds).toBe(0);
    expect(early.sent).toEqual([{ body: { organizationId, feedList: false }, delaySeconds: 20 }]);

    // 31 s in: the feeds that hold video 9 are due, both changes patched at once; feed B,
    // which only video 10 is in, started waiting 5 s in: asked for again for 35 s in.
    const due = passDeps(at(31), delay);
    const pass = await rebuildRequested(due.deps, organizationId, false, unlimitedBudget);
    expect(pass.feeds).toBe(3);
    expect(pass.patched).toBe(3);
    expect(due.sent).toEqual([{ body: { organizationId, feedList: false }, delaySeconds: 4 }]);
    const titles = async (name: string) =>
      (await callJson(`/v2/feeds/${feedIds[name]}/videos.json`)).body.videos.map(
        (v: any) => v.title,
      );
    expect(await titles("Everything")).toEqual(expect.arrayContaining(["burst 1", "burst 2"]));
    expect(await titles("B")).not.toContain("burst 2");
    const later = passDeps(at(36), delay);
    const rest = await rebuildRequested(later.deps, organizationId, false, unlimitedBudget);
    expect([rest.feeds, rest.patched]).toEqual([1, 1]);
    expect(later.sent).toEqual([]);
    expect(await titles("B")).toContain("burst 2");
    await expectRebuildFindsFilesAsPatched();
  });

  it("a change to a feed already waiting for a rebuild keeps it so (it is due at once)", async () => {
    const { deps } = passDeps(new Date());
    const everything = (await orgFeeds()).find((f) => f.feedId === feedIds.Everything)!;
    await markFeedsDirty(deps.db, [everything.id], new Date().toISOString());
    await markFeedsOfVideos(
      deps.db,
      organizationId,
      await names([ids[6]!]),
      new Date().toISOString(),
    );
    const row = await env.DB.prepare("select patch_ids, waiting_since from feeds where id = ?")
      .bind(everything.id)
      .first();
    expect(row).toEqual({ patch_ids: null, waiting_since: null });
    const pass = await rebuildDirtyFeeds(
      passDeps(new Date()).deps,
      unlimitedBudget,
      organizationId,
    );
    expect(pass.feeds).toBeGreaterThan(pass.patched);
    await expectRebuildFindsFilesAsPatched();
  });
});

describe("through E4 and the queue", () => {
  it("a title edit is patched into the files, reading and writing a few rows per feed", async () => {
    // The queue's passes use FEED_MAX_VIDEOS 1000: rebuild once at it, so the layouts match.
    const { deps } = backgroundDeps(env, new Date(), Date.now, () => {});
    await rebuildFeeds(deps, await orgFeeds());
    const counter = async (name: string) =>
      Number(
        (await env.DB.prepare("select value from cron_state where name = ?")
          .bind(`feed_work_${name}`)
          .first("value")) ?? 0,
      );
    const before = { patched: await counter("patched"), rows: await counter("rows_read") };
    const key = keys[7]!;
    const put = await writeJson(org, "PUT", "/v2/content", {
      contentKey: key,
      title: "edited through E4",
      description: "",
      thumbnailUrl: null,
      categories: ["c"],
      tags: ["a", "b"],
      events: [],
      customFields: [],
    });
    expect(put.res.status, JSON.stringify(put.body)).toBe(200);
    const holding = ["A", "B", "A or c", "Everything"];
    await vi.waitFor(
      async () => {
        for (const name of holding) {
          const videos = (await callJson(`/${feedIds[name]}-feed.json`)).body.videos as any[];
          expect(videos.find((v) => v.content_key === key)?.title, name).toBe("edited through E4");
        }
        expect(await counter("patched")).toBe(before.patched + holding.length);
      },
      { timeout: SETTLED_MS, interval: 100 },
    );
    const rows = (await counter("rows_read")) - before.rows;
    // Per feed: its claim, its layout, its build record; once: the due feeds, the video, the
    // checks after (measured: 45 for these 4 feeds).
    expect(rows, "rows read by the patch pass").toBeLessThanOrEqual(20 + 12 * holding.length);
    const { deps: oracle } = backgroundDeps(env, new Date(), Date.now, () => {});
    const stats = await rebuildFeeds(oracle, await orgFeeds());
    expect(stats.written).toBe(0);
  });
});

describe("the feeds of a write", () => {
  it("are found by the video's names: a write reads the rows of its feeds, not of every feed", async () => {
    const other = await createOrg();
    const video = await publishVideo(other, mp4, { title: "named", tags: ["mine"] });
    const retitle = async (title: string) => {
      const put = await writeJson(other, "PUT", "/v2/content", {
        contentKey: video,
        title,
        description: "",
        thumbnailUrl: null,
        categories: [],
        tags: ["mine"],
        events: [],
        customFields: [],
      });
      expect(put.res.status).toBe(200);
      return d1Cost(put.res).rowsRead;
    };
    const created = await writeJson(other, "POST", "/v2/feeds", {
      name: "Mine",
      configuration: { tags: ["mine"] },
    });
    const before = await retitle("first");
    for (let i = 0; i < 40; i++)
      await writeJson(other, "POST", "/v2/feeds", {
        name: `Unrelated ${i}`,
        configuration: { tags: [`elsewhere${i}`] },
      });
    const after = await retitle("second");
    expect(after - before, JSON.stringify({ before, after })).toBeLessThan(10);
    // A feed whose names change is found by its new names.
    const renamed = await writeJson(other, "PUT", `/v2/feeds/${created.body.feed_id}`, {
      name: "Mine",
      configuration: { tags: ["mine", "also"] },
    });
    expect(renamed.res.status).toBe(200);
    const unrelated = await writeJson(other, "PUT", `/v2/feeds/${created.body.feed_id}`, {
      name: "Mine",
      configuration: { tags: ["also"] },
    });
    expect(unrelated.res.status).toBe(200);
    const otherId = (await env.DB.prepare("select id from organizations where organization_key = ?")
      .bind(other.organizationKey)
      .first("id")) as number;
    const feeds = await listFeeds(db(), otherId);
    const marked = await markFeedsOfVideos(
      db(),
      otherId,
      [{ subOrganizationId: null, categories: [], tags: ["also"], events: [], id: 1 }],
      new Date().toISOString(),
    );
    expect(marked.feeds.map((f) => f.feedId)).toEqual([created.body.feed_id]);
    expect(feeds).toHaveLength(41);
  });
});
