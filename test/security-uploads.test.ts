// Uploads that survive a crash and leave nothing behind (issue "Safe on the open internet" §4):
// a retried E2 and the cron finish an upload completed in R2 but not in D1; media and
// thumbnails are served only for published, listed content; thumbnail URLs are bound to their
// content; abandoned uploads expire; URL fields are http(s) only.
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import { readJpegInfo } from "../src/media/jpeg";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { ingest, organizationId } from "./fixtures/stats";
import thumbUrl from "./fixtures/thumb-1920x1080.jpg?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  SETTLED_MS,
  statsD1,
  type TestOrg,
  uploadParts,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
const thumb = dataUrlBytes(thumbUrl);
let org: TestOrg;

beforeAll(async () => {
  org = await createOrg();
});

async function cronAt(ms: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "*/5 * * * *", scheduledTime: ms }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

async function startUpload(body: Record<string, unknown> = {}) {
  const created = await writeJson(org, "POST", "/v2/content/", {
    contentSize: mp4.byteLength,
    ...body,
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  const parts = await uploadParts(created.body.contentUploadData.signedUrls, mp4);
  return { created: created.body, parts };
}

/** What a crash right after R2's completion leaves: the object stored, D1 still `uploading`. */
async function completeInR2Only(
  created: { contentUploadData: { key: string; uploadId: string } },
  parts: { PartNumber: number; ETag: string }[],
) {
  const { key, uploadId } = created.contentUploadData;
  await env.MEDIA.resumeMultipartUpload(key, uploadId).complete(
    parts.map((p) => ({ partNumber: p.PartNumber, etag: p.ETag.replace(/"/g, "") })),
  );
}

/** Whether R2 still has the multipart upload (storing a part into an aborted one fails). */
async function uploadAlive(key: string, uploadId: string): Promise<boolean> {
  try {
    await env.MEDIA.resumeMultipartUpload(key, uploadId).uploadPart(1, new Uint8Array(8));
    return true;
  } catch {
    return false;
  }
}

const status = (contentKey: string) =>
  env.DB.prepare("select status from contents where content_key = ?")
    .bind(contentKey)
    .first<string>("status");

describe("a crash between R2's completion and D1", () => {
  it("a retried E2 finishes the job", async () => {
    const { created, parts } = await startUpload({ title: "Retried" });
    await completeInR2Only(created, parts);
    const retried = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: created.contentUploadData.uploadId,
      key: created.contentUploadData.key,
      parts,
    });
    expect(retried.res.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.status).toBe("available");
    expect(retried.body.duration).toBeGreaterThan(0);
  });

  it("the cron finishes an upload whose E2 never came back", async () => {
    const { created, parts } = await startUpload({ title: "Crashed" });
    // The E2 that crashed had recorded its start.
    const asked = new Date(Date.now() - 10 * 60_000).toISOString();
    await env.DB.prepare("update contents set complete_requested_at = ? where content_key = ?")
      .bind(asked, created.contentKey)
      .run();
    await completeInR2Only(created, parts);
    await cronAt(Date.now());
    expect(await status(created.contentKey)).toBe("available");
    expect(
      (await call(`/media/${created.contentKey}/${created.contentKey}.mp4`, { method: "HEAD" }))
        .status,
    ).toBe(200);
  });
});

describe("abandoned uploads", () => {
  it("expire once their URLs expired plus the grace period: the R2 upload is aborted", async () => {
    const created = await writeJson(org, "POST", "/v2/content/", { contentSize: mp4.byteLength });
    const { key, uploadId } = created.body.contentUploadData;
    await cronAt(Date.now() + 3600_000); // URLs still valid: nothing happens
    expect(await status(created.body.contentKey)).toBe("uploading");
    expect(await uploadAlive(key, uploadId)).toBe(true);
    await cronAt(Date.now() + (86_400 + 3600 + 60) * 1000);
    expect(await status(created.body.contentKey)).toBe("expired");
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${created.body.contentKey}`);
    expect(e3.body.status).toBe("expired");
    expect(await uploadAlive(key, uploadId)).toBe(false);
  });
});

describe("media and thumbnails are served only for listed content", () => {
  const media = (key: string) => call(`/media/${key}/${key}.mp4`);
  const thumbnail = (key: string) => call(`/thumbnails/${key}.jpg`);

  it("not for unfinished, rejected, removed or deleted content", async () => {
    const { created } = await startUpload();
    expect((await media(created.contentKey)).status).toBe(404); // parts stored, not completed
    expect((await thumbnail(created.contentKey)).status).toBe(404);

    const published = await publishVideo(org, mp4);
    expect((await media(published)).status).toBe(200);
    // Published without a thumbnail: the default 1920x1080 image.
    const fallback = await thumbnail(published);
    expect(fallback.status).toBe(200);
    expect(readJpegInfo(new Uint8Array(await fallback.arrayBuffer()))).toEqual({
      width: 1920,
      height: 1080,
    });
    await admin(`/admin/videos/${published}`, "PATCH", { removed: true });
    expect((await media(published)).status).toBe(404);
    expect((await thumbnail(published)).status).toBe(404);
    await admin(`/admin/videos/${published}`, "PATCH", { removed: false });
    expect((await media(published)).status).toBe(200);

    await writeJson(org, "DELETE", `/v2/content?contentKey=${published}`);
    expect((await media(published)).status).toBe(404);
    expect((await thumbnail(published)).status).toBe(404);
    expect((await thumbnail("nosuch1")).status).toBe(404);
  });
});

describe("thumbnail upload URLs", () => {
  it("are bound to their content: a deleted content's URL cannot overwrite a later one of the same key", async () => {
    const other = await createOrg();
    const key = `t${Math.random().toString(36).slice(2, 9)}`;
    const first = await writeJson(org, "POST", "/v2/content/", {
      contentKey: key,
      contentSize: 10,
    });
    const staleUrl = first.body.thumbnailUploadUrl as string;
    await writeJson(org, "DELETE", `/v2/content?contentKey=${key}`);
    const second = await writeJson(other, "POST", "/v2/content/", {
      contentKey: key,
      contentSize: 10,
    });
    expect(second.res.status).toBe(200);
    const attack = await callJson(staleUrl, { method: "PUT", body: thumb });
    expect(attack.res.status).toBe(404);
    expect(await env.MEDIA.head(`${key}/thumbnail.jpg`)).toBeNull();
    // The new content's own URL works.
    expect(
      (await callJson(second.body.thumbnailUploadUrl, { method: "PUT", body: thumb })).res.status,
    ).toBe(200);
  });

  it("can be asked for again to replace a thumbnail later", async () => {
    const key = await publishVideo(org, mp4);
    const fresh = await writeJson(org, "POST", "/v2/content/thumbnail", { contentKey: key });
    expect(fresh.res.status).toBe(200);
    expect(Date.parse(fresh.body.expires)).toBeGreaterThan(Date.now());
    const put = await callJson(fresh.body.thumbnailUploadUrl, { method: "PUT", body: thumb });
    expect(put.res.status).toBe(200);
    expect((await call(`/thumbnails/${key}.jpg`)).headers.get("ETag")).not.toMatch(/default/);
    expect(
      (await writeJson(org, "POST", "/v2/content/thumbnail", { contentKey: "nosuch1" })).res.status,
    ).toBe(404);
  });
});

describe("URL fields", () => {
  it("accept http(s) only: no javascript: or data: URLs reach records or feed files", async () => {
    for (const url of [
      "javascript:alert(1)",
      "data:text/html,<script>x</script>",
      "ftp://example.com/x.vtt",
    ]) {
      const res = await writeJson(org, "POST", "/v2/content/", {
        contentSize: 10,
        subtitles: [{ en: url }],
      });
      expect(res.res.status, url).toBe(400);
      expect(res.body.message).toMatch(/must be an http\(s\) URL/);
      expect(
        (await writeJson(org, "POST", "/v2/content/", { contentSize: 10, thumbnailUrl: url })).res
          .status,
      ).toBe(400);
    }
  });
});

describe("deleting an organization", () => {
  it("aborts its open uploads and erases its statistics", async () => {
    const doomed = await createOrg();
    const created = await writeJson(doomed, "POST", "/v2/content/", {
      contentSize: mp4.byteLength,
    });
    await ingest(doomed, [
      { event: "video_played", contentKey: created.body.contentKey, playerId: "p1" },
    ]);
    const orgId = await organizationId(doomed);
    // Every table of the statistics database that names the organization (rollups, totals, bookkeeping).
    const tables = [
      "video_stats",
      "video_day_totals",
      "video_month_totals",
      "video_org_day_totals",
      "dimension_counts",
      "ingestion_days",
    ];
    const rowsOf = async (stats: D1Database) =>
      Promise.all(
        tables.map(async (t) => [
          t,
          await stats
            .prepare(`select count(*) as n from ${t} where organization_id = ?`)
            .bind(orgId)
            .first("n"),
        ]),
      );
    expect((await rowsOf(await statsD1(doomed))).filter(([, n]) => n === 0)).toEqual([]);
    const deleted = await admin(`/admin/organizations/${doomed.organizationKey}`, "DELETE");
    expect(deleted.res.status).toBe(200);
    // Gone from every shard (a move could have left a copy in another).
    for (const stats of [env.STATS_DB, env.STATS_DB_1!])
      expect((await rowsOf(stats)).filter(([, n]) => n !== 0)).toEqual([]);
    // The multipart upload was aborted after the answer.
    await expect
      .poll(
        () =>
          uploadAlive(created.body.contentUploadData.key, created.body.contentUploadData.uploadId),
        { timeout: SETTLED_MS },
      )
      .toBe(false);
  });
});

describe("a part body that stops short (issue 18 §4)", () => {
  it("answers 400 naming what happened, stores nothing, and a PUT of the whole part then succeeds", async () => {
    const created = await writeJson(org, "POST", "/v2/content/", {
      contentSize: mp4.byteLength,
      title: "Interrupted",
    });
    expect(created.res.status).toBe(200);
    const [url] = created.body.contentUploadData.signedUrls as string[];
    // The client declares the whole part, sends a third of it, and goes away.
    const third = mp4.slice(0, Math.floor(mp4.byteLength / 3));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(third);
      },
      pull(controller) {
        controller.error(new Error("connection reset by the client"));
      },
    });
    const res = await call(url!, {
      method: "PUT",
      headers: { "Content-Length": String(mp4.byteLength) },
      body,
      duplex: "half",
    } as RequestInit);
    const answer = (await res.json()) as { message: string };
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.message).toMatch(
      /part 1: the body stopped after \d+ of \d+ bytes: the client stopped sending or went away; nothing of it was stored/,
    );
    // Nothing was stored: the resume endpoint lists no part.
    const state = await writeJson(
      org,
      "GET",
      `/v2/content/upload?contentKey=${created.body.contentKey}`,
    );
    expect(state.body.storedParts).toEqual([]);
    const parts = await uploadParts(created.body.contentUploadData.signedUrls, mp4);
    const done = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: created.body.contentUploadData.uploadId,
      key: created.body.contentUploadData.key,
      parts,
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
  });
});
