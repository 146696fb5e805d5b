// Resumable uploads (issue 13 §0): GET /v2/content/upload tells any client which parts of an
// unfinished upload are stored (number, size, ETag) and signs fresh URLs for the missing ones;
// the worker's part URLs record what they stored, a part stored twice counts once (the last).
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import mpeg4Url from "./fixtures/mpeg4-aac.mp4?inline";
import thumbUrl from "./fixtures/thumb-1920x1080.jpg?inline";
import {
  CHUNK_SIZE,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  padWithFreeBox,
  type TestOrg,
  uploadParts,
  writeJson,
} from "./helpers";

let org: TestOrg;
let other: TestOrg;
const media = padWithFreeBox(dataUrlBytes(faststartUrl), CHUNK_SIZE + 77_777);

beforeAll(async () => {
  org = await createOrg();
  other = await createOrg();
});

async function create(body: Record<string, unknown> = {}) {
  const created = await writeJson(org, "POST", "/v2/content/", {
    contentSize: media.byteLength,
    title: "resumable",
    ...body,
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  return created.body;
}

const state = (key: string, who: TestOrg = org) =>
  writeJson(who, "GET", `/v2/content/upload?contentKey=${key}`);
const rows = (key: string) =>
  env.DB.prepare(
    "select part_number, size, etag from upload_parts where content_id = (select id from contents where content_key = ?) order by part_number",
  )
    .bind(key)
    .all()
    .then((r) => r.results);

describe("GET /v2/content/upload", () => {
  it("lists stored parts and signs fresh URLs for the missing ones, until E2 completes the upload", async () => {
    const created = await create();
    const { uploadId, key } = created.contentUploadData;
    const fresh = await state(created.contentKey);
    expect(fresh.res.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body).toMatchObject({
      contentKey: created.contentKey,
      status: "uploading",
      contentSize: media.byteLength,
      chunkSize: CHUNK_SIZE,
      uploadId,
      key,
      partCount: 2,
      storedParts: [],
      thumbnailUploaded: false,
    });
    expect(fresh.body.missingParts.map((p: any) => [p.PartNumber, p.Size])).toEqual([
      [1, CHUNK_SIZE],
      [2, 77_777],
    ]);

    // One part through E1's URL: the resume answer names it with the ETag the PUT answered.
    const [first] = await uploadParts(created.contentUploadData.signedUrls.slice(0, 1), media);
    const halfway = await state(created.contentKey);
    expect(halfway.body.storedParts).toEqual([
      { PartNumber: 1, ETag: first!.ETag, Size: CHUNK_SIZE },
    ]);
    expect(halfway.body.missingParts).toHaveLength(1);
    const missing = halfway.body.missingParts[0];
    expect(missing).toMatchObject({ PartNumber: 2, Size: 77_777 });
    expect(new URL(missing.signedUrl).searchParams.get("partNumber")).toBe("2");
    expect(Date.parse(halfway.body.expires)).toBeGreaterThan(Date.now());

    // The thumbnail URL is fresh too, and the answer says when the thumbnail is there.
    expect(
      (await call(halfway.body.thumbnailUploadUrl, { method: "PUT", body: dataUrlBytes(thumbUrl) }))
        .status,
    ).toBe(200);
    expect((await state(created.contentKey)).body.thumbnailUploaded).toBe(true);

    // Another client finishes: the missing part through its fresh URL, then E2 with every part.
    const put = await call(missing.signedUrl, { method: "PUT", body: media.slice(CHUNK_SIZE) });
    expect(put.status).toBe(200);
    const parts = [
      ...halfway.body.storedParts.map(({ PartNumber, ETag }: any) => ({ PartNumber, ETag })),
      { PartNumber: 2, ETag: put.headers.get("ETag")! },
    ];
    const done = await writeJson(org, "POST", "/v2/content/complete", { uploadId, key, parts });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe("available");

    // Nothing left to resume, and the part list is gone with the upload.
    const after = await state(created.contentKey);
    expect(after.res.status).toBe(409);
    expect(after.body).toEqual({
      message: `contentKey: ${created.contentKey} is available; there is no upload to resume`,
    });
    expect(await rows(created.contentKey)).toEqual([]);
  });

  it("keeps the last of a part stored twice, which is the one E2 completes with", async () => {
    const created = await create();
    const { uploadId, key, signedUrls } = created.contentUploadData;
    const firstTry = await call(signedUrls[0], { method: "PUT", body: media.slice(0, CHUNK_SIZE) });
    const secondTry = await call(signedUrls[0], {
      method: "PUT",
      body: media.slice(0, CHUNK_SIZE),
    });
    expect([firstTry.status, secondTry.status]).toEqual([200, 200]);
    expect(secondTry.headers.get("ETag")).not.toBe(firstTry.headers.get("ETag"));
    const { body } = await state(created.contentKey);
    expect(body.storedParts).toEqual([
      { PartNumber: 1, ETag: secondTry.headers.get("ETag"), Size: CHUNK_SIZE },
    ]);
    expect(await rows(created.contentKey)).toHaveLength(1);
    const last = await call(body.missingParts[0].signedUrl, {
      method: "PUT",
      body: media.slice(CHUNK_SIZE),
    });
    const parts = [
      { PartNumber: 1, ETag: body.storedParts[0].ETag },
      { PartNumber: 2, ETag: last.headers.get("ETag")! },
    ];
    const done = await writeJson(org, "POST", "/v2/content/complete", { uploadId, key, parts });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
  });

  it("answers only the owner, and only while the content is uploading", async () => {
    const created = await create();
    expect((await state(created.contentKey, other)).res.status).toBe(404);
    const anonymous = await callJson(`/v2/content/upload?contentKey=${created.contentKey}`);
    expect(anonymous.res.status).toBe(401);
    expect(anonymous.body.message).toBeTypeOf("string");
    const bad = await state("not-a-key!");
    expect(bad.res.status).toBe(400);
    expect(bad.body.message).toMatch(/^contentKey:/);
    expect((await state("Zz000000")).res.status).toBe(404);

    // Rejected media: nothing to resume (E5 deletes it).
    const rejectedMedia = dataUrlBytes(mpeg4Url);
    const rejected = await create({ contentSize: rejectedMedia.byteLength });
    const parts = await uploadParts(rejected.contentUploadData.signedUrls, rejectedMedia);
    const e2 = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: rejected.contentUploadData.uploadId,
      key: rejected.contentUploadData.key,
      parts,
    });
    expect(e2.res.status).toBe(400);
    expect((await state(rejected.contentKey)).res.status).toBe(409);
    expect(await rows(rejected.contentKey)).toEqual([]);

    // Deleted: gone, part rows with it.
    await uploadParts(created.contentUploadData.signedUrls.slice(0, 1), media);
    expect(await rows(created.contentKey)).toHaveLength(1);
    const contentId = await env.DB.prepare("select id from contents where content_key = ?")
      .bind(created.contentKey)
      .first<number>("id");
    expect(
      (await writeJson(org, "DELETE", `/v2/content?contentKey=${created.contentKey}`)).res.status,
    ).toBe(200);
    expect((await state(created.contentKey)).res.status).toBe(404);
    expect(
      await env.DB.prepare("select count(*) as n from upload_parts where content_id = ?")
        .bind(contentId)
        .first("n"),
    ).toBe(0);
  });

  it("forgets the stored parts when the cron expires an abandoned upload", async () => {
    const created = await create();
    await uploadParts(created.contentUploadData.signedUrls.slice(0, 1), media);
    expect(await rows(created.contentKey)).toHaveLength(1);
    // Past the URLs' 24 h and the hour of grace.
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() + 26 * 3600_000 }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const after = await state(created.contentKey);
    expect(after.res.status).toBe(409);
    expect(after.body.message).toBe(
      `contentKey: ${created.contentKey} is expired; there is no upload to resume`,
    );
    expect(await rows(created.contentKey)).toEqual([]);
  });

  it("answers a part for an upload R2 no longer holds with 404 and what to do", async () => {
    const created = await create();
    const { key, uploadId, signedUrls } = created.contentUploadData;
    // What R2's lifecycle rule does to a multipart upload left incomplete for 7 days.
    await env.MEDIA.resumeMultipartUpload(key, uploadId).abort();
    const put = await callJson(signedUrls[0], { method: "PUT", body: media.slice(0, CHUNK_SIZE) });
    expect(put.res.status).toBe(404);
    expect(put.body.message).toMatch(
      /^upload not found in storage: it was aborted .*; delete the content and create it again$/,
    );
    expect(await rows(created.contentKey)).toEqual([]);
  });

  describe("on a clock a day later", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("keeps a resumed upload alive while the URLs the resume signed are valid", async () => {
      const start = Date.now();
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(start);
      const created = await create();
      await uploadParts(created.contentUploadData.signedUrls.slice(0, 1), media);
      const cron = async (hours: number) => {
        const ctx = createExecutionContext();
        await worker.scheduled(
          createScheduledController({
            cron: "*/5 * * * *",
            scheduledTime: start + hours * 3600_000,
          }),
          env,
          ctx,
        );
        await waitOnExecutionContext(ctx);
      };

      // 23 h later, an hour before E1's URLs expire, the client resumes: fresh URLs for a day.
      vi.setSystemTime(start + 23 * 3600_000);
      const resumed = await state(created.contentKey);
      expect(resumed.res.status, JSON.stringify(resumed.body)).toBe(200);
      expect(Math.abs(Date.parse(resumed.body.expires) - (start + 47 * 3600_000))).toBeLessThan(
        1000,
      );

      // Past E1's URLs and the hour of grace: the upload stays, and the resume's URL still works.
      await cron(26);
      vi.setSystemTime(start + 26 * 3600_000);
      const [missing] = resumed.body.missingParts;
      const last = await uploadParts([missing.signedUrl], media.subarray(CHUNK_SIZE));
      const done = await writeJson(org, "POST", "/v2/content/complete", {
        uploadId: created.contentUploadData.uploadId,
        key: created.contentUploadData.key,
        parts: [
          ...resumed.body.storedParts.map(
            ({ PartNumber, ETag }: { PartNumber: number; ETag: string }) => ({ PartNumber, ETag }),
          ),
          { ...last[0]!, PartNumber: 2 },
        ],
      });
      expect(done.res.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.status).toBe("available");
    });

    it("expires a resumed upload once the resume's URLs expired, plus the grace", async () => {
      const start = Date.now();
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(start);
      const created = await create();
      vi.setSystemTime(start + 23 * 3600_000);
      expect((await state(created.contentKey)).res.status).toBe(200);
      const cron = async (hours: number) => {
        const ctx = createExecutionContext();
        await worker.scheduled(
          createScheduledController({
            cron: "*/5 * * * *",
            scheduledTime: start + hours * 3600_000,
          }),
          env,
          ctx,
        );
        await waitOnExecutionContext(ctx);
      };
      // Signed again at 23 h: those URLs expire at 47 h, the upload after the hour of grace.
      await cron(47.5);
      vi.setSystemTime(start + 47.5 * 3600_000);
      expect((await state(created.contentKey)).res.status).toBe(200);
      // That look signed afresh too (47.5 h); past its URLs and the grace, the cron expires it.
      await cron(72.6);
      vi.setSystemTime(start + 72.6 * 3600_000);
      const after = await state(created.contentKey);
      expect(after.res.status).toBe(409);
      expect(after.body.message).toBe(
        `contentKey: ${created.contentKey} is expired; there is no upload to resume`,
      );
    });
  });
});
