// How the published feed files follow changes, in both formats (/<feed_id>-feed.json and
// /v2/feeds/<feed_id>/videos.json):
// - writes: a change of membership (E4, operator removal, E5, feed PUT) marks the feed dirty and
//   republishes it through the feed-rebuilds queue, so the files change without the cron; like the
//   other feed tests, these wait for the files to show the change;
// - scheduled runs (src/domain/feed-cron.ts) at chosen instants: overlapping runs, and the
//   reconcile cursor walking every feed and wrapping.
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  SETTLED_MS,
  type TestOrg,
  withMembers,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);

describe("writes: membership changes reach the files without the cron", () => {
  let org: TestOrg;
  const feeds: Record<string, string> = {};

  /** Content keys in both files of a feed (they must agree). */
  async function members(feedId: string): Promise<string[]> {
    const legacy = await callJson(`/${feedId}-feed.json`);
    const v2 = await callJson(`/v2/feeds/${feedId}/videos.json`);
    expect(legacy.res.status).toBe(200);
    expect(v2.res.status).toBe(200);
    const a = (legacy.body.videos as any[]).map((v) => v.content_key);
    const b = (v2.body.videos as any[]).map((v) => v.contentKey);
    expect(b, `${feedId}: both files list the same videos`).toEqual(a);
    return a;
  }

  /** Waits (polling, like the other feed tests) until the feed's files satisfy `check`. */
  async function membersWhen(
    feedId: string,
    check: (keys: string[]) => boolean,
  ): Promise<string[]> {
    let keys: string[] = [];
    await vi.waitFor(
      async () => {
        keys = await members(feedId);
        expect(check(keys), `${feedId}: ${JSON.stringify(keys)}`).toBe(true);
      },
      { timeout: SETTLED_MS, interval: 50 },
    );
    return keys;
  }
  const has = (key: string) => (keys: string[]) => keys.includes(key);
  const lacks = (key: string) => (keys: string[]) => !keys.includes(key);

  /** E4 with every update field (spec 2.1), changing only the tags. */
  function putTags(key: string, tags: string[]) {
    return writeJson(org, "PUT", "/v2/content", {
      contentKey: key,
      title: key,
      description: "",
      thumbnailUrl: null,
      categories: [],
      tags,
      events: [],
      customFields: [],
    });
  }

  beforeAll(async () => {
    org = await createOrg();
    for (const [name, configuration] of [
      ["A", { tags: ["a"] }],
      ["B", { tags: ["b"] }],
      ["Everything", {}],
    ] as const) {
      const created = await writeJson(org, "POST", "/v2/feeds", { name, configuration });
      expect(created.res.status).toBe(200);
      feeds[name] = created.body.feed_id;
    }
  });

  it("a video whose tags move from feed A's to feed B's leaves A's files and enters B's (E4)", async () => {
    const v = await publishVideo(org, mp4, { title: "mover", tags: ["a"] });
    await membersWhen(feeds.A!, has(v));
    expect(await members(feeds.B!)).not.toContain(v);
    const put = await putTags(v, ["b"]);
    expect(put.res.status, JSON.stringify(put.body)).toBe(200);
    await membersWhen(feeds.B!, has(v));
    await membersWhen(feeds.A!, lacks(v));
    expect(await members(feeds.Everything!)).toContain(v);
  });

  it("removed: true set by the operator takes the video out of every feed's files, removed: false brings it back", async () => {
    const v = await publishVideo(org, mp4, { title: "withdrawn", tags: ["a"] });
    await membersWhen(feeds.A!, has(v));
    await membersWhen(feeds.Everything!, has(v));
    const removed = await admin(`/admin/videos/${v}`, "PATCH", { removed: true });
    expect(removed.body.removed).toBe(true);
    await membersWhen(feeds.A!, lacks(v));
    await membersWhen(feeds.Everything!, lacks(v));
    const restored = await admin(`/admin/videos/${v}`, "PATCH", { removed: false });
    expect(restored.body.removed).toBe(false);
    await membersWhen(feeds.A!, has(v));
    await membersWhen(feeds.Everything!, has(v));
  });

  it("a video deleted with E5 leaves the files", async () => {
    const v = await publishVideo(org, mp4, { title: "deleted", tags: ["a", "b"] });
    for (const name of ["A", "B", "Everything"]) await membersWhen(feeds[name]!, has(v));
    const deleted = await writeJson(org, "DELETE", `/v2/content?contentKey=${v}`);
    expect(deleted.res.status).toBe(200);
    for (const name of ["A", "B", "Everything"]) await membersWhen(feeds[name]!, lacks(v));
  });

  it("a feed configuration PUT republishes the feed with its new members, metadata and name", async () => {
    const va = await publishVideo(org, mp4, { title: "only a", tags: ["a"] });
    const vb = await publishVideo(org, mp4, { title: "only b", tags: ["b"] });
    const created = await writeJson(org, "POST", "/v2/feeds", {
      name: "Switching",
      configuration: { tags: ["a"] },
    });
    expect(created.res.status).toBe(200);
    const id: string = created.body.feed_id;
    await membersWhen(id, (keys) => keys.includes(va) && !keys.includes(vb));

    const put = await writeJson(org, "PUT", `/v2/feeds/${id}`, {
      name: "Switched",
      configuration: { tags: ["b"] },
    });
    expect(put.res.status, JSON.stringify(put.body)).toBe(200);
    await membersWhen(id, (keys) => keys.includes(vb) && !keys.includes(va));
    const metadata = await callJson(`/v2/feeds/${id}/metadata.json`);
    expect(metadata.body).toEqual({
      feed_id: id,
      name: "Switched",
      configuration: { categories: [], tags: ["b"], events: [] },
      generated_at: expect.any(String),
    });
    const legacy = await callJson(`/${id}-feed.json`);
    expect(legacy.body).toMatchObject({ name: "Switched", privateTags: ["b"] });
    await vi.waitFor(
      async () => {
        const list = await callJson(`/v2/orgs/${org.syncCode}/feeds.json`);
        expect(list.body.feeds).toContainEqual({ feed_id: id, name: "Switched" });
      },
      { timeout: SETTLED_MS, interval: 50 },
    );
    // Emptying the configuration makes it every video of the organization.
    expect(
      (await writeJson(org, "PUT", `/v2/feeds/${id}`, { name: "Switched", configuration: {} })).res
        .status,
    ).toBe(200);
    await membersWhen(id, (keys) => keys.includes(va) && keys.includes(vb));
    expect((await call(`/${id}-feed.json`)).headers.get("Content-Type")).toBe(
      "application/json; charset=utf-8",
    );
  });
});

describe("scheduled runs", () => {
  let org: TestOrg;
  const k: Record<string, string> = {};
  const feeds: Record<string, string> = {};

  /** R2 writes per key made through `bucket` (the real binding underneath). */
  function countingBucket(bucket: R2Bucket) {
    const puts = new Map<string, number>();
    const proxy = withMembers(bucket, {
      put: (key: string, ...rest: unknown[]) => {
        puts.set(key, (puts.get(key) ?? 0) + 1);
        return (bucket.put as (...a: unknown[]) => unknown).call(bucket, key, ...rest);
      },
    });
    return { bucket: proxy, puts };
  }

  /** One scheduled run at `scheduledTime`, with variable overrides and optionally another bucket. */
  async function runCron(
    scheduledTime: number,
    vars: Record<string, string> = {},
    bucket?: R2Bucket,
  ) {
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "*/5 * * * *", scheduledTime }),
      { ...env, ...vars, ...(bucket && { MEDIA: bucket }) },
      ctx,
    );
    await waitOnExecutionContext(ctx);
  }

  async function state(name: string): Promise<string | null> {
    return (await env.DB.prepare("select value from cron_state where name = ?")
      .bind(name)
      .first("value")) as string | null;
  }

  /** The file at `path` once the write's queued rebuild has produced what `check` wants. */
  async function fileWhen(path: string, check: (body: any) => boolean) {
    let body: any;
    await vi.waitFor(
      async () => {
        const got = await callJson(path);
        expect(got.res.status).toBe(200);
        body = got.body;
        expect(check(body)).toBe(true);
      },
      { timeout: SETTLED_MS, interval: 50 },
    );
    return body;
  }

  const titles = (body: any) => (body.videos as any[]).map((v) => v.title).sort();
  const withoutGeneratedAt = ({ generated_at: _, ...rest }: any) => rest;
  /** A cron instant ahead of the wall clock, so runs never go back in time across tests. */
  const cronInstant = (stepsAhead: number) =>
    (Math.ceil(Date.now() / 300_000) + stepsAhead) * 300_000;

  beforeAll(async () => {
    org = await createOrg();
    k.x = await publishVideo(org, mp4, { title: "x video", tags: ["x"] });
    k.y = await publishVideo(org, mp4, { title: "y video", tags: ["y"] });
    for (const [name, tags] of [
      ["X", ["x"]],
      ["Y", ["y"]],
      ["XY", ["x", "y"]],
    ] as const) {
      const created = await writeJson(org, "POST", "/v2/feeds", { name, configuration: { tags } });
      expect(created.res.status).toBe(200);
      feeds[name] = created.body.feed_id;
    }
    await fileWhen(`/${feeds.XY}-feed.json`, (b) => b.videos.length === 2);
    await fileWhen(`/v2/orgs/${org.syncCode}/feeds.json`, (b) => b.feeds.length === 3);
  });

  describe("overlapping runs", () => {
    // Cron delivery is at least once and a slow run can overlap the next: two runs started
    // together must leave every dirty feed published with the data of that moment, its dirty
    // mark cleared and the files identical to what one run writes.
    const ids = () => [feeds.X!, feeds.Y!, feeds.XY!];

    /** Marks the three feeds dirty behind a data change, then starts two runs at once. */
    async function overlap(label: string, offsets: number[]) {
      const title = `renamed ${label}`;
      // A change whose waitUntil rebuild never ran: data changed, the three feeds marked dirty.
      await env.DB.prepare(
        "update contents set title = ? || ' ' || content_key where content_key in (?, ?)",
      )
        .bind(title, k.x, k.y)
        .run();
      await env.DB.prepare("update feeds set dirty_since = ? where feed_id in (?, ?, ?)")
        .bind(new Date().toISOString(), ...ids())
        .run();
      const t = cronInstant(1);
      const { bucket, puts } = countingBucket(env.MEDIA);
      await Promise.all(offsets.map((offset) => runCron(t + offset, {}, bucket)));
      return { title, times: offsets.map((o) => new Date(t + o).toISOString()), puts };
    }

    for (const [label, offsets] of [
      ["at the same scheduled time", [0, 0]],
      ["at adjacent scheduled times", [0, 5 * 60_000]],
      ["at adjacent scheduled times, the later one started first", [5 * 60_000, 0]],
    ] as const) {
      it(`leave every dirty feed published, as one run would: ${label}`, async () => {
        const { title, times } = await overlap(label, [...offsets]);
        // Every dirty feed is published with the new titles, in both file formats.
        const expected = {
          X: [`${title} ${k.x}`],
          Y: [`${title} ${k.y}`],
          XY: [`${title} ${k.x}`, `${title} ${k.y}`].sort(),
        };
        for (const [name, want] of Object.entries(expected)) {
          expect(titles((await callJson(`/${feeds[name]}-feed.json`)).body), name).toEqual(want);
          expect(
            titles((await callJson(`/v2/feeds/${feeds[name]}/videos.json`)).body),
            name,
          ).toEqual(want);
        }
        const dirty = await env.DB.prepare(
          "select count(*) as n from feeds where feed_id in (?, ?, ?) and dirty_since is not null",
        )
          .bind(...ids())
          .first("n");
        expect(dirty).toBe(0);
        // The feed list names each feed once.
        const list = await callJson(`/v2/orgs/${org.syncCode}/feeds.json`);
        expect(list.body.feeds.map((f: any) => f.feed_id).sort()).toEqual([...ids()].sort());
        // Cron state: the window check reached one of the two instants (never beyond both, so no
        // window change is skipped); the reconcile cursor wrapped (fewer feeds than the batch).
        expect(times).toContain(await state("windows_checked_until"));
        expect(await state("reconcile_after_feed_id")).toBe("0");
        // Each file holds what a single build writes (forced rebuild, compared without generated_at).
        const published = new Map<string, unknown>();
        for (const id of ids()) {
          for (const path of [
            `/${id}-feed.json`,
            `/v2/feeds/${id}/videos.json`,
            `/v2/feeds/${id}/metadata.json`,
          ]) {
            published.set(path, withoutGeneratedAt((await callJson(path)).body));
          }
        }
        for (const id of ids())
          expect(
            (await admin("/admin/feeds/rebuild", "POST", { feedId: id, force: true })).res.status,
          ).toBe(200);
        for (const [path, body] of published)
          expect(withoutGeneratedAt((await callJson(path)).body), path).toEqual(body);
      });
    }

    // Each run leases the feeds it rebuilds (feeds.building_until): of two overlapping runs,
    // each dirty feed is rebuilt by one, so every changed file is written once.
    it("overlapping runs publish a dirty feed's files once, not once per run", async () => {
      const { puts } = await overlap("counted", [0, 0]);
      const twice = [...puts].filter(([key, n]) => n > 1 && ids().some((id) => key.includes(id)));
      expect(twice, JSON.stringify([...puts])).toEqual([]);
    });
  });

  describe("reconcile cursor", () => {
    it("walks every feed in id order, FEED_RECONCILE_BATCH per run, and wraps to the start", async () => {
      // More feeds than one batch: another organization's four join the others.
      const other = await createOrg();
      for (const name of ["R1", "R2", "R3", "R4"])
        expect((await writeJson(other, "POST", "/v2/feeds", { name })).res.status).toBe(200);
      await fileWhen(`/v2/orgs/${other.syncCode}/feeds.json`, (b) => b.feeds.length === 4);
      // Every feed of the file's database takes part; wait until no write's rebuild is pending
      // (it would stamp built_at with its own time).
      await vi.waitFor(
        async () =>
          expect(
            await env.DB.prepare(
              "select count(*) as n from feeds where dirty_since is not null",
            ).first("n"),
          ).toBe(0),
        {
          timeout: SETTLED_MS,
          interval: 50,
        },
      );
      const ids = (
        await env.DB.prepare("select id from feeds order by id").all<{ id: number }>()
      ).results.map((r) => r.id);
      const batch = 2;
      const vars = { FEED_RECONCILE_BATCH: String(batch) };
      let t = cronInstant(20);
      // Nothing dirty left, so each run rebuilds exactly its reconcile slice.
      await runCron(t, { FEED_RECONCILE_BATCH: "0" });
      expect(
        await env.DB.prepare("select count(*) as n from feeds where dirty_since is not null").first(
          "n",
        ),
      ).toBe(0);

      let cursor = Number((await state("reconcile_after_feed_id")) ?? 0);
      const rebuiltInOrder: number[] = [];
      let wraps = 0;
      const runs = Math.ceil(ids.length / batch) + 2; // a full cycle, the wrap, and the start again
      for (let run = 0; run < runs; run++) {
        t += 5 * 60_000;
        await runCron(t, vars);
        const builtAt = new Date(t).toISOString();
        const rebuilt = (
          await env.DB.prepare("select id from feeds where built_at = ? order by id")
            .bind(builtAt)
            .all<{ id: number }>()
        ).results.map((r) => r.id);
        // The next `batch` feeds after the cursor, in id order; fewer at the end, which wraps it.
        const next = ids.filter((id) => id > cursor).slice(0, batch);
        expect(rebuilt, `run ${run}, cursor ${cursor}`).toEqual(next);
        cursor = next.length < batch ? 0 : next[next.length - 1]!;
        if (cursor === 0) wraps += 1;
        expect(Number(await state("reconcile_after_feed_id")), `run ${run}`).toBe(cursor);
        rebuiltInOrder.push(...rebuilt);
      }
      // Across the runs: every feed, each followed by the next one in id order, the last by the first.
      expect(wraps).toBeGreaterThan(0);
      expect(new Set(rebuiltInOrder)).toEqual(new Set(ids));
      const successor = (id: number) => ids[(ids.indexOf(id) + 1) % ids.length];
      for (let i = 1; i < rebuiltInOrder.length; i++)
        expect(rebuiltInOrder[i]).toBe(successor(rebuiltInOrder[i - 1]!));
    });
  });
});
