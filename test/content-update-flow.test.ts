// The spec's update flow (4.1 E4: "retrieve with E3, modify, send") for a content with every
// field set, checked through E3, E6 and the published feed files afterwards; and the media
// answers real players and caches rely on (Range, If-Range, 416).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import thumbUrl from "./fixtures/thumb-1920x1080.jpg?inline";
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
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
let org: TestOrg;
let key: string;
let feedId: string;

beforeAll(async () => {
  org = await createOrg({ entitlements: ["custom_fields", "events"] });
  key = await publishVideo(org, mp4, {
    title: "Everything set",
    description: "Every field of the content object",
    thumbnailUrl: null,
    categories: ["News"],
    tags: ["flow", "before"],
    events: ["Launch"],
    customFields: [{ season: 2 }, { show: "Morning" }],
    translations: [{ language: "de", title: "Alles gesetzt", description: "Jedes Feld" }],
    subtitles: [{ en: "https://subs.example.com/flow.en.vtt" }],
    isLive: false,
  });
  const feed = await writeJson(org, "POST", "/v2/feeds", {
    name: "Flow",
    configuration: { tags: ["flow"] },
  });
  feedId = feed.body.feed_id;
});

async function feedFile(path: string, check: (body: any) => boolean) {
  let body: any;
  await vi.waitFor(
    async () => {
      const res = await callJson(path);
      expect(res.res.status).toBe(200);
      body = res.body;
      expect(check(body)).toBe(true);
    },
    { timeout: SETTLED_MS, interval: 50 },
  );
  return body;
}

describe("retrieve, modify, send (spec 4.1 E4)", () => {
  it("takes E3's answer back as it is, with or without a change", async () => {
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    expect(e3.res.status).toBe(200);
    // E3 carries the read-only fields, and the service's own thumbnail URL for "none given".
    expect(e3.body).toMatchObject({
      status: "available",
      thumbnailUrl: `${ORIGIN}/thumbnails/${key}.jpg`,
      url: `${ORIGIN}/media/${key}/${key}.mp4`,
    });
    expect(e3.body.duration).toBeGreaterThan(0);

    const unchanged = await writeJson(org, "PUT", "/v2/content", e3.body);
    expect(unchanged.res.status, JSON.stringify(unchanged.body)).toBe(200);
    expect(unchanged.body).toEqual(e3.body);

    const modified = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      title: "Edited through the flow",
      tags: ["flow", "after"],
    });
    expect(modified.res.status, JSON.stringify(modified.body)).toBe(200);
    expect(modified.body).toMatchObject({
      title: "Edited through the flow",
      tags: ["flow", "after"],
      status: "available",
    });
    // The service thumbnail stays the service's: sending its URL back is not a publisher URL.
    expect(
      await env.DB.prepare("select thumbnail_url from contents where content_key = ?")
        .bind(key)
        .first("thumbnail_url"),
    ).toBeNull();
    expect(modified.body.thumbnailUrl).toBe(`${ORIGIN}/thumbnails/${key}.jpg`);

    const again = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    expect(again.body).toEqual(modified.body);

    const e6 = await callJson(`/v2/videos/?contentKey=${key}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    expect(e6.body.data).toEqual([
      expect.objectContaining({
        contentKey: key,
        title: "Edited through the flow",
        tags: ["flow", "after"],
        categories: ["News"],
        events: ["Launch"],
        customFields: [{ season: 2 }, { show: "Morning" }],
        thumbnail: `${ORIGIN}/thumbnails/${key}.jpg`,
      }),
    ]);
    const legacy = await feedFile(
      `/${feedId}-feed.json`,
      (b) => b.videos[0]?.title === "Edited through the flow",
    );
    expect(legacy.videos[0]).toMatchObject({
      content_key: key,
      privateTags: ["flow", "after"],
      translations: [{ language: "de", title: "Alles gesetzt", description: "Jedes Feld" }],
    });
    const v2 = await feedFile(
      `/v2/feeds/${feedId}/videos.json`,
      (b) => b.videos[0]?.title === "Edited through the flow",
    );
    expect(v2.videos[0]).toMatchObject({
      contentKey: key,
      subtitles: [{ en: "https://subs.example.com/flow.en.vtt" }],
      thumbnail: `${ORIGIN}/thumbnails/${key}.jpg`,
    });
  });

  it("still refuses unknown keys and wrong types, read-only fields included", async () => {
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    for (const [change, message] of [
      [{ colour: "red" }, 'Unrecognized key: "colour"'],
      [{ status: 7 }, "status: Invalid option"],
      [{ duration: "long" }, "duration: Invalid input: expected number"],
      [{ publishedDate: 12 }, "publishedDate: Invalid input: expected string"],
    ] as const) {
      const res = await writeJson(org, "PUT", "/v2/content", { ...e3.body, ...change });
      expect(res.res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.message).toContain(message);
    }
  });

  it("keeps a publisher thumbnail URL as given", async () => {
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    const own = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      thumbnailUrl: "https://images.example.com/flow.jpg",
    });
    expect(own.body.thumbnailUrl).toBe("https://images.example.com/flow.jpg");
    const back = await writeJson(org, "PUT", "/v2/content", { ...own.body, thumbnailUrl: null });
    expect(back.body.thumbnailUrl).toBe(`${ORIGIN}/thumbnails/${key}.jpg`);
  });
});

describe("the service thumbnail's URL", () => {
  const jpeg = dataUrlBytes(thumbUrl);
  /** PUTs a JPEG to a fresh thumbnail upload URL (POST /v2/content/thumbnail). */
  async function replaceThumbnail(contentKey: string) {
    const asked = await writeJson(org, "POST", "/v2/content/thumbnail", { contentKey });
    expect(asked.res.status).toBe(200);
    const put = await call(asked.body.thumbnailUploadUrl, {
      method: "PUT",
      body: jpeg,
      headers: { "Content-Type": "image/jpeg" },
    });
    expect(put.status, await put.clone().text()).toBe(200);
    return (await put.json()) as { thumbnailUrl: string };
  }

  it("is never a deleted video's URL once another organization creates the key again (issue 34 §2)", async () => {
    const contentKey = `t${Math.random().toString(36).slice(2, 9)}`;
    await publishVideo(org, mp4, { contentKey });
    const old = await replaceThumbnail(contentKey);
    expect((await call(old.thumbnailUrl)).headers.get("Cache-Control")).toContain("immutable");
    expect(
      (await writeJson(org, "DELETE", `/v2/content?contentKey=${contentKey}`)).res.status,
    ).toBe(200);
    const other = await createOrg();
    const created = await writeJson(other, "POST", "/v2/content/", {
      contentSize: mp4.byteLength,
      contentKey,
    });
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    const put = await call(created.body.thumbnailUploadUrl, {
      method: "PUT",
      body: jpeg,
      headers: { "Content-Type": "image/jpeg" },
    });
    expect(put.status).toBe(200);
    const current = ((await put.json()) as { thumbnailUrl: string }).thumbnailUrl;
    // The new content's thumbnail has a URL of its own: a cache that kept the deleted video's
    // (immutable) never shows it for the new one.
    expect(current).not.toBe(old.thumbnailUrl);
  });

  it("moves on with each stored thumbnail, so players and CDNs may keep each one for good", async () => {
    const own = await publishVideo(org, mp4, { title: "Thumbnails", tags: ["flow"] });
    const listed = async () =>
      (
        await callJson(`/v2/videos/?contentKey=${own}`, {
          headers: { "X-Service-Sync-Code": org.syncCode },
        })
      ).body.data[0].thumbnail;
    // No thumbnail stored yet: the default image, unversioned and short-lived.
    expect(await listed()).toBe(`${ORIGIN}/thumbnails/${own}.jpg`);
    expect((await call(`/thumbnails/${own}.jpg`)).headers.get("Cache-Control")).toBe(
      "public, max-age=60",
    );

    const first = await replaceThumbnail(own);
    expect(first.thumbnailUrl).toMatch(new RegExp(`^${ORIGIN}/thumbnails/${own}\\.jpg\\?v=\\d+$`));
    expect(await listed()).toBe(first.thumbnailUrl);
    const served = await call(first.thumbnailUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");

    const second = await replaceThumbnail(own);
    const version = (url: string) => Number(new URL(url).searchParams.get("v"));
    expect(version(second.thumbnailUrl)).toBeGreaterThan(version(first.thumbnailUrl));
    // The replaced version's URL is not kept for good any more (it shows the new thumbnail).
    expect((await call(first.thumbnailUrl)).headers.get("Cache-Control")).toBe(
      "public, max-age=60",
    );
    // Every record moves on at once (the cached listing too), and E4 keeps the service thumbnail when sent back.
    expect(await listed()).toBe(second.thumbnailUrl);
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${own}`);
    expect(e3.body.thumbnailUrl).toBe(second.thumbnailUrl);
    const sentBack = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      thumbnailUrl: first.thumbnailUrl,
    });
    expect(sentBack.body.thumbnailUrl).toBe(second.thumbnailUrl);
    await feedFile(`/v2/feeds/${feedId}/videos.json`, (body) =>
      body.videos.some(
        (v: { contentKey: string; thumbnail: string }) =>
          v.contentKey === own && v.thumbnail === second.thumbnailUrl,
      ),
    );
  });
});

describe("media answers", () => {
  let url: string;
  let etag: string;
  beforeAll(async () => {
    url = `/media/${key}/${key}.mp4`;
    etag = (await call(url, { method: "HEAD" })).headers.get("ETag")!;
  });

  it("serves one range, and the whole file for a stale If-Range (RFC 9110 §13.1.5)", async () => {
    const fresh = await call(url, { headers: { Range: "bytes=0-99", "If-Range": etag } });
    expect(fresh.status).toBe(206);
    expect(fresh.headers.get("Content-Range")).toBe(`bytes 0-99/${mp4.byteLength}`);
    expect((await fresh.arrayBuffer()).byteLength).toBe(100);
    const stale = await call(url, {
      headers: { Range: "bytes=0-99", "If-Range": '"an-older-version"' },
    });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(mp4.byteLength);
    const staleDate = await call(url, {
      headers: { Range: "bytes=0-99", "If-Range": "Tue, 01 Jan 2019 00:00:00 GMT" },
    });
    expect(staleDate.status).toBe(200);
    await staleDate.arrayBuffer();
  });

  it("answers a range past the end with 416, the error shape and Content-Range: bytes */size", async () => {
    const res = await call(url, { headers: { Range: `bytes=${mp4.byteLength + 10}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get("Content-Range")).toBe(`bytes */${mp4.byteLength}`);
    expect(await res.json()).toEqual({
      status: "KO",
      error: `Range: not satisfiable; the object has ${mp4.byteLength} bytes`,
    });
  });

  it("answers an empty suffix range (bytes=-0) with 416, unless If-Range is stale (RFC 9110 §14.1.1)", async () => {
    const empty = await call(url, { headers: { Range: "bytes=-0" } });
    expect(empty.status).toBe(416);
    expect(empty.headers.get("Content-Range")).toBe(`bytes */${mp4.byteLength}`);
    await empty.arrayBuffer();
    const stale = await call(url, { headers: { Range: "bytes=-0", "If-Range": '"older"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(mp4.byteLength);
  });

  it("answers several ranges or a malformed Range with the whole file, and If-None-Match with 304", async () => {
    for (const range of ["bytes=0-1,5-6", "bytes=abc", "items=0-1"]) {
      const res = await call(url, { headers: { Range: range } });
      expect(res.status, range).toBe(200);
      await res.arrayBuffer();
    }
    expect((await call(url, { headers: { "If-None-Match": `"x", ${etag}` } })).status).toBe(304);
    expect((await call(url, { headers: { "If-None-Match": `W/${etag}` } })).status).toBe(304);
  });

  it("stops serving a removed video", async () => {
    const removed = await publishVideo(org, mp4);
    expect((await call(`/media/${removed}/${removed}.mp4`, { method: "HEAD" })).status).toBe(200);
    await admin(`/admin/videos/${removed}`, "PATCH", { removed: true });
    expect((await call(`/media/${removed}/${removed}.mp4`, { method: "HEAD" })).status).toBe(404);
  });
});
