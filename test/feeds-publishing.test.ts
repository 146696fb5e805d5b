// Feed files in R2: exact shapes, serving, json-feed paging, targeted rebuilds, the cron
// (windows opening and closing, interrupted rebuilds), deletion.
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config";
import { createDb } from "../src/db/client";
import { findFeedByFeedId } from "../src/db/feeds";
import { rebuildFeeds } from "../src/domain/feeds/publisher";
import worker from "../src/index";
import { writeFeedFile } from "../src/storage/feed-files";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  SETTLED_MS,
  type TestOrg,
  withMembers,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
let org: TestOrg;
const k: Record<string, string> = {};
const feeds: Record<string, string> = {};

/**
 * Runs the scheduled handler as the cron trigger would at `scheduledTime` (default: now), with
 * optional variable overrides (e.g. FEED_RECONCILE_BATCH).
 */
async function runCron(scheduledTime = Date.now(), vars: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "*/5 * * * *", scheduledTime }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** Waits for the rebuild after a write (the feed-rebuilds queue): the file at `path` satisfies `check`. */
async function fileWhen(path: string, check: (body: any, res: Response) => boolean) {
  let last: { res: Response; body: any } | undefined;
  await vi.waitFor(
    async () => {
      last = await callJson(path);
      expect(last.res.status).toBe(200);
      expect(check(last.body, last.res)).toBe(true);
    },
    { timeout: SETTLED_MS, interval: 100 },
  );
  return last!;
}

/** Waits until no rebuild of the organization is pending (a previous write's queued rebuild). */
async function settled() {
  await vi.waitFor(
    async () => {
      const dirty = await env.DB.prepare(
        "select count(*) as n from feeds where dirty_since is not null and organization_id = (select id from organizations where organization_key = ?)",
      )
        .bind(org.organizationKey)
        .first("n");
      expect(dirty).toBe(0);
    },
    { timeout: SETTLED_MS, interval: 50 },
  );
}

const videoKeys = (body: any) => (body.videos as any[]).map((v) => v.content_key ?? v.contentKey);

beforeAll(async () => {
  org = await createOrg();
  k.v1 = await publishVideo(org, mp4, {
    title: "First",
    description: "one",
    tags: ["t1"],
    categories: ["c1"],
    events: ["e1"],
    translations: [{ language: "de", title: "Erste", description: "eins" }],
    subtitles: [{ en: "https://subs.example.com/v1.en.vtt" }],
  });
  await admin(`/admin/videos/${k.v1}`, "PATCH", { serviceCategories: ["Sports"] });
  k.v2 = await publishVideo(org, mp4, { title: "Second", tags: ["t2"] });
  k.v3 = await publishVideo(org, mp4, { title: "Third", tags: ["t1"] });
  for (const [name, configuration] of [
    ["F1", { tags: ["t1"] }],
    ["F2", { tags: ["t2"] }],
    ["F3", { categories: ["nothing"] }],
  ] as const) {
    const created = await writeJson(org, "POST", "/v2/feeds", { name, configuration });
    expect(created.res.status).toBe(200);
    feeds[name] = created.body.feed_id;
  }
});

describe("feed files", () => {
  it("publishes the older feed file with the spec's fields", async () => {
    const { res, body } = await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.videos.length === 2);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=60, stale-while-revalidate=600");
    expect(res.headers.get("ETag")).toMatch(/^".+"$/);
    expect(body).toEqual({
      feed_id: feeds.F1,
      name: "F1",
      categories: ["Sports"],
      privateCategories: [],
      privateTags: ["t1"],
      events: [],
      videos: [
        expect.objectContaining({ content_key: k.v3, title: "Third" }),
        {
          content_key: k.v1,
          created_date: expect.any(String),
          title: "First",
          description: "one",
          duration: 2,
          categories: ["Sports"],
          privateCategories: ["c1"],
          privateTags: ["t1"],
          events: ["e1"],
          thumbnail: `${ORIGIN}/thumbnails/${k.v1}.jpg`,
          translations: [{ language: "de", title: "Erste", description: "eins" }],
          // Extension (issue 40): a running live stream.
          isLive: false,
        },
      ],
      generated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("publishes v2 videos, metadata and the organization's feed list", async () => {
    const { body: videos } = await fileWhen(
      `/v2/feeds/${feeds.F1}/videos.json`,
      (b) => b.videos.length === 2,
    );
    expect(Object.keys(videos)).toEqual(["videos", "generated_at"]);
    expect(videos.videos[1]).toEqual({
      contentKey: k.v1,
      createdDate: expect.any(String),
      publishedDate: expect.any(String),
      title: "First",
      description: "one",
      duration: "2",
      serviceCategories: ["Sports"],
      categories: ["c1"],
      tags: ["t1"],
      events: ["e1"],
      customFields: [],
      isLive: false,
      thumbnail: `${ORIGIN}/thumbnails/${k.v1}.jpg`,
      url: `${ORIGIN}/media/${k.v1}/${k.v1}.mp4`,
      urlHLS: expect.stringMatching(
        /^https:\/\/catalog\.test\/hls\/[A-Za-z0-9]+\/h2-[0-9a-z]+\/master\.m3u8$/,
      ),
      subtitles: [{ en: "https://subs.example.com/v1.en.vtt" }],
    });
    const { body: metadata } = await fileWhen(`/v2/feeds/${feeds.F1}/metadata.json`, () => true);
    expect(metadata).toEqual({
      feed_id: feeds.F1,
      name: "F1",
      configuration: { categories: [], tags: ["t1"], events: [] },
      generated_at: expect.any(String),
    });
    const { body: list } = await fileWhen(
      `/v2/orgs/${org.syncCode}/feeds.json`,
      (b) => b.feeds.length === 3,
    );
    expect(list.feeds).toEqual([
      { feed_id: feeds.F1, name: "F1" },
      { feed_id: feeds.F2, name: "F2" },
      { feed_id: feeds.F3, name: "F3" },
    ]);
    const { body: empty } = await fileWhen(`/${feeds.F3}-feed.json`, () => true);
    expect(empty.videos).toEqual([]);
  });

  it("serves HEAD and 304, and a JSON 404 for an unknown file", async () => {
    const { res } = await fileWhen(
      `/v2/feeds/${feeds.F2}/videos.json`,
      (b) => b.videos.length === 1,
    );
    const etag = res.headers.get("ETag")!;
    expect(
      (await call(`/v2/feeds/${feeds.F2}/videos.json`, { headers: { "If-None-Match": etag } }))
        .status,
    ).toBe(304);
    const head = await call(`/v2/feeds/${feeds.F2}/videos.json`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("Content-Length"))).toBeGreaterThan(0);
    const missing = await callJson("/v2/feeds/nosuchfeed/videos.json");
    expect(missing.res.status).toBe(404);
    expect(missing.body).toEqual({
      status: "KO",
      error: "no feed file at /v2/feeds/nosuchfeed/videos.json",
    });
    expect((await callJson("/nosuchfeed-feed.json")).res.status).toBe(404);
  });

  it("a read under way while its file is republished does not leave the old copy in the edge cache", async () => {
    const path = `/v2/feeds/${feeds.F2}/videos.json`;
    const key = path.slice(1);
    await fileWhen(path, (b) => b.videos.length === 1);
    const old = JSON.parse(await (await env.MEDIA.get(key))!.text());
    const { generated_at, ...content } = old;
    const next = { ...content, videos: [{ ...old.videos[0], title: "Republished during a read" }] };
    // The bucket as the read sees it: the read gets the file, and before its answer is out (and
    // kept at the edge) the file is republished, as a rebuild writes it (a new object, this
    // location's copy dropped).
    const racing = withMembers(env.MEDIA, {
      get: async (k: string, options?: R2GetOptions) => {
        const object = (await env.MEDIA.get(k, options)) as R2ObjectBody | null;
        if (!object || k !== key) return object;
        const bytes = await object.arrayBuffer();
        await writeFeedFile(
          { bucket: env.MEDIA, origin: ORIGIN },
          key,
          JSON.stringify(next),
          new Date().toISOString(),
        );
        return withMembers(object, { body: new Response(bytes).body });
      },
    });
    const ctx = createExecutionContext();
    const during = await worker.fetch(
      new Request(`${ORIGIN}${path}?race=1`),
      { ...env, MEDIA: racing },
      ctx,
    );
    expect(((await during.json()) as any).videos[0].title).toBe(old.videos[0].title);
    await waitOnExecutionContext(ctx);
    // The next read is not given the copy the first one read: it reads the file again.
    const after = await call(`${path}?race=1`);
    expect(after.headers.get("X-Edge-Cache")).toBe("miss");
    expect(((await after.json()) as any).videos[0].title).toBe("Republished during a read");
  });

  it("pages the deprecated json-feed with total_videos", async () => {
    await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.videos.length === 2);
    const first = await callJson(`/json-feed?feed=${feeds.F1}&start=0&count=1`);
    expect(first.res.status).toBe(200);
    expect(first.body).toEqual([
      {
        categories: [],
        content_key: k.v3,
        created_date: expect.any(String),
        creator_code: org.organizationKey,
        start_date: expect.any(String),
        end_date: null,
        geos: "-",
        key: k.v3,
        total_videos: 2,
        video: {
          description: "",
          duration: "2",
          id: expect.any(Number),
          key: k.v3,
          thumbnail: `${ORIGIN}/thumbnails/${k.v3}.jpg`,
          title: "Third",
          translations: [],
          isLive: false,
        },
      },
    ]);
    const second = await callJson(`/json-feed?feed=${feeds.F1}&start=1&count=1`);
    expect(second.body.map((e: any) => e.content_key)).toEqual([k.v1]);
    const past = await callJson(`/json-feed?feed=${feeds.F1}&start=2&count=1`);
    expect(past.body).toEqual([]);
    expect((await callJson("/json-feed?feed=nosuch")).res.status).toBe(404);
    expect((await callJson(`/json-feed?feed=${feeds.F1}&count=0`)).res.status).toBe(400);
  });

  it("rebuilds only the affected feeds after a content update", async () => {
    await settled(); // F1 must not be rewritten by another test's pending rebuild
    const f1 = await fileWhen(`/v2/feeds/${feeds.F1}/videos.json`, (b) => b.videos.length === 2);
    const f2 = await fileWhen(`/v2/feeds/${feeds.F2}/videos.json`, (b) => b.videos.length === 1);
    const f1Etag = f1.res.headers.get("ETag");
    const f1Object = await env.MEDIA.head(`v2/feeds/${feeds.F1}/videos.json`);
    const update = await writeJson(org, "PUT", "/v2/content", {
      contentKey: k.v2,
      title: "Second, renamed",
      description: "",
      thumbnailUrl: null,
      categories: [],
      tags: ["t2"],
      events: [],
      customFields: [],
    });
    expect(update.res.status).toBe(200);
    const changed = await fileWhen(
      `/v2/feeds/${feeds.F2}/videos.json`,
      (b) => b.videos[0].title === "Second, renamed",
    );
    expect(changed.res.headers.get("ETag")).not.toBe(f2.res.headers.get("ETag"));
    const untouched = await call(`/v2/feeds/${feeds.F1}/videos.json`);
    expect(untouched.headers.get("ETag")).toBe(f1Etag);
    expect((await env.MEDIA.head(`v2/feeds/${feeds.F1}/videos.json`))!.uploaded.getTime()).toBe(
      f1Object!.uploaded.getTime(),
    );
  });

  it("rewrites a file whose head changed though its videos did not (a renamed feed), and only that file", async () => {
    await settled();
    const legacy = await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.videos.length === 2);
    const videos = await env.MEDIA.head(`v2/feeds/${feeds.F1}/videos.json`);
    const renamed = `F1 renamed ${Date.now()}`;
    expect(
      (
        await writeJson(org, "PUT", `/v2/feeds/${feeds.F1}`, {
          name: renamed,
          configuration: { tags: ["t1"] },
        })
      ).res.status,
    ).toBe(200);
    const after = await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.name === renamed);
    expect(videoKeys(after.body)).toEqual(videoKeys(legacy.body));
    expect(after.res.headers.get("ETag")).not.toBe(legacy.res.headers.get("ETag"));
    await settled();
    // videos.json lists the same records under no head: left alone.
    expect((await env.MEDIA.head(`v2/feeds/${feeds.F1}/videos.json`))!.etag).toBe(videos!.etag);
    expect(
      (
        await writeJson(org, "PUT", `/v2/feeds/${feeds.F1}`, {
          name: "F1",
          configuration: { tags: ["t1"] },
        })
      ).res.status,
    ).toBe(200);
    await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.name === "F1");
  });

  it("does not rewrite unchanged files when the cron reconciles", async () => {
    await settled();
    await fileWhen(`/${feeds.F1}-feed.json`, (b) => b.videos.length === 2);
    const before = await env.MEDIA.head(`${feeds.F1}-feed.json`);
    await runCron();
    await runCron();
    const after = await env.MEDIA.head(`${feeds.F1}-feed.json`);
    expect(after!.etag).toBe(before!.etag);
  });

  it("follows a syndication window opening and closing on the scheduled runs", async () => {
    // The runs happen at instants the test chooses (controller.scheduledTime), not by waiting:
    // a window [T+10 min, T+20 min) must appear on the run at T+10 and disappear on the run at
    // T+20. The reconcile slice is switched off, so only the window check can change the files.
    const t = Math.ceil(Date.now() / 300_000) * 300_000 + 300_000; // a cron instant ahead of the clock
    const at = (minutes: number) => t + minutes * 60_000;
    const windowsOnly = { FEED_RECONCILE_BATCH: "0" };
    const inF1 = async () => ({
      v2: videoKeys((await callJson(`/v2/feeds/${feeds.F1}/videos.json`)).body).includes(k.v3),
      legacy: videoKeys((await callJson(`/${feeds.F1}-feed.json`)).body).includes(k.v3),
    });
    await runCron(at(0), windowsOnly); // windows checked up to T
    const patched = await admin(`/admin/videos/${k.v3}`, "PATCH", {
      syndications: [
        {
          name: "w",
          start_time: new Date(at(10)).toISOString(),
          stop_time: new Date(at(20)).toISOString(),
          geos: [],
        },
      ],
    });
    expect(patched.res.status, JSON.stringify(patched.body)).toBe(200);
    // The write's own rebuild (now, before the window) leaves v3 out.
    await fileWhen(`/v2/feeds/${feeds.F1}/videos.json`, (b) => !videoKeys(b).includes(k.v3));
    await fileWhen(`/${feeds.F1}-feed.json`, (b) => !videoKeys(b).includes(k.v3));
    await runCron(at(5), windowsOnly);
    expect(await inF1()).toEqual({ v2: false, legacy: false });
    await runCron(at(10), windowsOnly); // start_time is inclusive
    expect(await inF1()).toEqual({ v2: true, legacy: true });
    await runCron(at(15), windowsOnly);
    expect(await inF1()).toEqual({ v2: true, legacy: true });
    await runCron(at(20), windowsOnly); // stop_time is exclusive
    expect(await inF1()).toEqual({ v2: false, legacy: false });
    // Restore: without windows v3 is published again.
    await admin(`/admin/videos/${k.v3}`, "PATCH", { syndications: [] });
    await fileWhen(`/${feeds.F1}-feed.json`, (b) => videoKeys(b).includes(k.v3));
    await fileWhen(`/v2/feeds/${feeds.F1}/videos.json`, (b) => videoKeys(b).includes(k.v3));
  });

  it("completes an interrupted rebuild on the next cron run", async () => {
    await fileWhen(`/${feeds.F2}-feed.json`, (b) => b.videos.length === 1);
    // A rebuild that died midway: the data changed, the feed is dirty and still held by the dead
    // pass's lease, so no queued pass takes it (a message of an earlier write may still be in the
    // local queue); the first cron run after the lease ends does.
    const leaseEnds = Date.now() + 30_000;
    await env.DB.prepare(
      "update contents set title = 'Changed behind the scenes' where content_key = ?",
    )
      .bind(k.v2)
      .run();
    await env.DB.prepare("update feeds set dirty_since = ?, building_until = ? where feed_id = ?")
      .bind(new Date().toISOString(), new Date(leaseEnds).toISOString(), feeds.F2)
      .run();
    const stale = await callJson(`/${feeds.F2}-feed.json`);
    expect(stale.body.videos[0].title).not.toBe("Changed behind the scenes");
    await runCron(leaseEnds - 1000);
    expect(
      (await callJson(`/${feeds.F2}-feed.json`)).body.videos[0].title,
      "the lease still holds it",
    ).not.toBe("Changed behind the scenes");
    await runCron(leaseEnds + 1000);
    const fresh = await callJson(`/${feeds.F2}-feed.json`);
    expect(fresh.body.videos[0].title).toBe("Changed behind the scenes");
    const row = await env.DB.prepare("select dirty_since from feeds where feed_id = ?")
      .bind(feeds.F2)
      .first("dirty_since");
    expect(row).toBeNull();
  });

  it("caps files at the configured number of videos while json-feed pages past it", async () => {
    const db = createDb(env.DB);
    const feed = (await findFeedByFeedId(db, feeds.F1!))!;
    await env.DB.prepare("update feeds set files = '{}' where id = ?").bind(feed.id).run();
    const config = { ...loadConfig(env), feedMaxVideos: 1 };
    await rebuildFeeds(
      {
        db,
        bucket: env.MEDIA,
        config,
        origins: { baseUrl: ORIGIN, staticUrl: ORIGIN },
        now: new Date(),
      },
      [{ ...feed, files: {} }],
    );
    const capped = await callJson(`/v2/feeds/${feeds.F1}/videos.json`);
    expect(capped.body.videos).toHaveLength(1);
    const paged = await callJson(`/json-feed?feed=${feeds.F1}&start=1&count=5`);
    expect(paged.body).toHaveLength(1);
    expect(paged.body[0].total_videos).toBe(2);
    // Restore the full file (default cap) for the other tests.
    const restored = await admin("/admin/feeds/rebuild", "POST", { feedId: feeds.F1, force: true });
    expect(restored.res.status).toBe(200);
    await fileWhen(`/v2/feeds/${feeds.F1}/videos.json`, (b) => b.videos.length === 2);
  });

  it("removes a deleted feed's files and its entry in the feed list", async () => {
    // A feed of its own: F1–F3 are used by the other tests.
    const doomed = await writeJson(org, "POST", "/v2/feeds", {
      name: "Doomed",
      configuration: { tags: ["t2"] },
    });
    expect(doomed.res.status).toBe(200);
    const id: string = doomed.body.feed_id;
    await fileWhen(`/${id}-feed.json`, (b) => b.videos.length === 1);
    await fileWhen(`/v2/orgs/${org.syncCode}/feeds.json`, (b) =>
      b.feeds.some((f: any) => f.feed_id === id),
    );
    const deleted = await writeJson(org, "DELETE", `/v2/feeds/${id}`);
    expect(deleted.res.status).toBe(200);
    // Gone before the answer, not in waitUntil.
    for (const path of [
      `/${id}-feed.json`,
      `/v2/feeds/${id}/videos.json`,
      `/v2/feeds/${id}/metadata.json`,
    ]) {
      expect((await call(path)).status, path).toBe(404);
    }
    const list = await callJson(`/v2/orgs/${org.syncCode}/feeds.json`);
    expect(list.body.feeds.map((f: any) => f.feed_id)).toEqual([feeds.F1, feeds.F2, feeds.F3]);
  });

  it("removes every file of a deleted organization", async () => {
    const gone = await createOrg();
    await publishVideo(gone, mp4, { title: "bye" });
    const feed = await writeJson(gone, "POST", "/v2/feeds", { name: "Bye" });
    await fileWhen(`/${feed.body.feed_id}-feed.json`, (b) => b.videos.length === 1);
    const res = await admin(`/admin/organizations/${gone.organizationKey}`, "DELETE");
    expect(res.body).toEqual({ deleted: gone.organizationKey, feeds: 1, videos: 1 });
    expect((await call(`/${feed.body.feed_id}-feed.json`)).status).toBe(404);
    expect((await call(`/v2/orgs/${gone.syncCode}/feeds.json`)).status).toBe(404);
    expect(
      (
        await callJson("/admin/organizations/" + gone.organizationKey, {
          headers: { Authorization: "Bearer test-admin-token" },
        })
      ).res.status,
    ).toBe(404);
  });
});

describe("operator rebuild", () => {
  it("rebuilds one feed, a video's feeds, or every feed page by page", async () => {
    const one = await admin("/admin/feeds/rebuild", "POST", { feedId: feeds.F1, force: true });
    expect(one.body).toEqual({ feeds: 1, written: 3, unchanged: 0, nextAfterId: null });
    const again = await admin("/admin/feeds/rebuild", "POST", { feedId: feeds.F1 });
    expect(again.body).toEqual({ feeds: 1, written: 0, unchanged: 3, nextAfterId: null });
    const byVideo = await admin("/admin/feeds/rebuild", "POST", { contentKey: k.v1 });
    expect(byVideo.body.feeds).toBe(1); // v1 is in F1 only
    const page = await admin("/admin/feeds/rebuild", "POST", { all: true, limit: 1 });
    expect(page.body.feeds).toBe(1);
    expect(page.body.nextAfterId).toEqual(expect.any(Number));
    const bad = await admin("/admin/feeds/rebuild", "POST", { feedId: feeds.F1, all: true });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toBe("give exactly one of feedId, contentKey or all");
  });
});

describe("large lists stay within D1's 100 bound parameters", () => {
  it("handles a feed with hundreds of names and a write that touches more than 100 feeds", async () => {
    const big = await createOrg();
    const key = await publishVideo(big, mp4, { title: "Needle", tags: ["tag-149"] });
    const manyTags = Array.from({ length: 100 }, (_, i) => `tag-${i + 50}`);
    const manyCategories = Array.from({ length: 100 }, (_, i) => `cat-${i}`);
    const feed = await writeJson(big, "POST", "/v2/feeds", {
      name: "Wide",
      configuration: { tags: manyTags, categories: manyCategories },
    });
    expect(feed.res.status).toBe(200);
    const listed = await callJson(`/v2/videos/?feedId=${feed.body.feed_id}`, {
      headers: { "X-Service-Sync-Code": big.syncCode },
    });
    expect(listed.body.data.map((v: any) => v.contentKey)).toEqual([key]);
    await fileWhen(`/${feed.body.feed_id}-feed.json`, (b) => b.videos.length === 1);
    for (let i = 0; i < 105; i++)
      await env.DB.prepare(
        "insert into feeds (feed_id, organization_id, name, created_at, updated_at) select ?, id, ?, '2026-01-01', '2026-01-01' from organizations where organization_key = ?",
      )
        .bind(`bulkfeed${i}x${Date.now() % 100000}`, `F${i}`, big.organizationKey)
        .run();
    const res = await admin("/admin/feeds/rebuild", "POST", { contentKey: key });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.feeds).toBe(106);
  });
});
