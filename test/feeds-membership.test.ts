// Changes of feed membership reach the published files (/<feed_id>-feed.json and
// /v2/feeds/<feed_id>/videos.json). The design promises it without the cron: a write that
// changes a feed marks it dirty and rebuilds it in the request's waitUntil, so, like the other
// feed tests, each test waits for the files to show the change (no cron run here at all).
import { beforeAll, describe, expect, it, vi } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { admin, call, callJson, createOrg, dataUrlBytes, publishVideo, writeJson, type TestOrg } from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
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
async function membersWhen(feedId: string, check: (keys: string[]) => boolean): Promise<string[]> {
  let keys: string[] = [];
  await vi.waitFor(
    async () => {
      keys = await members(feedId);
      expect(check(keys), `${feedId}: ${JSON.stringify(keys)}`).toBe(true);
    },
    { timeout: 5000, interval: 50 },
  );
  return keys;
}
const has = (key: string) => (keys: string[]) => keys.includes(key);
const lacks = (key: string) => (keys: string[]) => !keys.includes(key);

/** E4 with every update field (spec 2.1), changing only the tags. */
function putTags(key: string, tags: string[]) {
  return writeJson(org, "PUT", "/v2/content", { contentKey: key, title: key, description: "", thumbnailUrl: null, categories: [], tags, events: [], customFields: [] });
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

describe("feed membership reaches the files", () => {
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
    const created = await writeJson(org, "POST", "/v2/feeds", { name: "Switching", configuration: { tags: ["a"] } });
    expect(created.res.status).toBe(200);
    const id: string = created.body.feed_id;
    await membersWhen(id, (keys) => keys.includes(va) && !keys.includes(vb));

    const put = await writeJson(org, "PUT", `/v2/feeds/${id}`, { name: "Switched", configuration: { tags: ["b"] } });
    expect(put.res.status, JSON.stringify(put.body)).toBe(200);
    await membersWhen(id, (keys) => keys.includes(vb) && !keys.includes(va));
    const metadata = await callJson(`/v2/feeds/${id}/metadata.json`);
    expect(metadata.body).toEqual({ feed_id: id, name: "Switched", configuration: { categories: [], tags: ["b"], events: [] }, generated_at: expect.any(String) });
    const legacy = await callJson(`/${id}-feed.json`);
    expect(legacy.body).toMatchObject({ name: "Switched", privateTags: ["b"] });
    await vi.waitFor(async () => {
      const list = await callJson(`/v2/orgs/${org.syncCode}/feeds.json`);
      expect(list.body.feeds).toContainEqual({ feed_id: id, name: "Switched" });
    }, { timeout: 5000, interval: 50 });
    // Emptying the configuration makes it every video of the organization.
    expect((await writeJson(org, "PUT", `/v2/feeds/${id}`, { name: "Switched", configuration: {} })).res.status).toBe(200);
    await membersWhen(id, (keys) => keys.includes(va) && keys.includes(vb));
    expect((await call(`/${id}-feed.json`)).headers.get("Content-Type")).toBe("application/json; charset=utf-8");
  });
});
