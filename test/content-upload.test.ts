// E1–E5 through the real worker: the full upload round trip with real media, thumbnails,
// rejection, completion rules, deletion and media serving.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import movUrl from "./fixtures/h264-aac.mov?inline";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import moovEndUrl from "./fixtures/h264-aac-moov-end.mp4?inline";
import mpeg4Url from "./fixtures/mpeg4-aac.mp4?inline";
import mpeg4FaststartUrl from "./fixtures/mpeg4-aac-faststart.mp4?inline";
import pngUrl from "./fixtures/not-a-jpeg.png?inline";
import smallThumbUrl from "./fixtures/thumb-1280x720.jpg?inline";
import thumbUrl from "./fixtures/thumb-1920x1080.jpg?inline";
import {
  CHUNK_SIZE,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  padWithFreeBox,
  sha256,
  type TestOrg,
  uploadParts,
  writeHeaders,
  writeJson,
} from "./helpers";

let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  org = await createOrg();
  other = await createOrg();
});

const twoPartSize = CHUNK_SIZE + 123_457;

async function createContent(body: Record<string, unknown>, who: TestOrg = org) {
  const { res, body: created } = await writeJson(who, "POST", "/v2/content/", body);
  expect(res.status, JSON.stringify(created)).toBe(200);
  return created;
}

describe("upload round trip", () => {
  it("creates, uploads thumbnail and two parts, completes, retrieves and serves the media", async () => {
    const media = padWithFreeBox(dataUrlBytes(faststartUrl), twoPartSize);
    const created = await createContent({
      contentSize: media.byteLength,
      title: "Round trip",
      description: "A real H.264/AAC clip",
      thumbnailUrl: null,
      categories: ["News", "news"],
      tags: ["alpha"],
      events: ["Launch"],
      customFields: [{ season: 3 }, { show: "Morning" }],
      translations: [{ language: "fr", title: "Aller-retour", description: "Un clip" }],
    });
    const key = created.contentKey as string;
    expect(key).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(created.contentSize).toBe(media.byteLength);
    expect(created.categories).toEqual(["News", "news"]);
    expect(created.customFields).toEqual([{ season: 3 }, { show: "Morning" }]);
    expect(created.thumbnailUrl).toBe(`https://catalog.test/thumbnails/${key}.jpg`);
    expect(created.status).toBe("uploading");
    const upload = created.contentUploadData;
    expect(upload.chunkSize).toBe(CHUNK_SIZE);
    expect(upload.key).toBe(`${key}/${key}.mp4`);
    expect(upload.signedUrls).toHaveLength(2);
    expect(typeof upload.uploadId).toBe("string");

    // Unfinished content serves no thumbnail (issue "Safe on the open internet" §4).
    expect((await call(created.thumbnailUrl)).status).toBe(404);

    const thumb = dataUrlBytes(thumbUrl);
    const thumbRes = await call(created.thumbnailUploadUrl, { method: "PUT", body: thumb });
    expect(thumbRes.status).toBe(200);

    const parts = await uploadParts(upload.signedUrls, media);
    expect(parts.every((p) => /^".+"$/.test(p.ETag))).toBe(true);

    // Not listed before completion: the media URL is not there yet.
    expect((await call(`/media/${upload.key}`)).status).toBe(404);

    const { res, body: done } = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: upload.uploadId,
      key: upload.key,
      parts,
    });
    expect(res.status, JSON.stringify(done)).toBe(200);
    expect(done.status).toBe("available");
    expect(done.duration).toBeCloseTo(2.0, 1);
    expect(Date.parse(done.publishedDate)).toBeGreaterThan(Date.now() - 60_000);
    expect(done.url).toBe(`https://catalog.test/media/${upload.key}`);
    // Published: the thumbnail uploaded before completion is served.
    const served = await call(created.thumbnailUrl);
    expect(served.headers.get("Content-Type")).toBe("image/jpeg");
    expect(await sha256(await served.arrayBuffer())).toBe(await sha256(thumb));

    const { body: fetched } = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    expect(fetched).toMatchObject({
      contentKey: key,
      title: "Round trip",
      categories: ["News", "news"],
      tags: ["alpha"],
      events: ["Launch"],
      status: "available",
    });

    const row = await env.DB.prepare(
      "select width, height, video_codec, audio_codec from contents where content_key = ?",
    )
      .bind(key)
      .first();
    expect(row).toEqual({ width: 320, height: 180, video_codec: "avc1", audio_codec: "mp4a.40.2" });

    // Media serving: whole file, ranges, HEAD, revalidation.
    const whole = await call(done.url);
    expect(whole.status).toBe(200);
    expect(await sha256(await whole.arrayBuffer())).toBe(await sha256(media));
    const etag = whole.headers.get("ETag")!;
    const ranged = await call(done.url, { headers: { Range: "bytes=100-199" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("Content-Range")).toBe(`bytes 100-199/${media.byteLength}`);
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(media.slice(100, 200));
    const tail = await call(done.url, { headers: { Range: "bytes=-10" } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(media.slice(-10));
    const head = await call(done.url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Content-Length")).toBe(String(media.byteLength));
    expect(head.headers.get("Accept-Ranges")).toBe("bytes");
    const notModified = await call(done.url, { headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    const beyond = await call(done.url, { headers: { Range: `bytes=${media.byteLength + 10}-` } });
    expect(beyond.status).toBe(416);

    // Completing twice is a 400.
    const again = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: upload.uploadId,
      key: upload.key,
      parts,
    });
    expect(again.res.status).toBe(400);
    expect(again.body.message).toMatch(/already completed/);
  });

  it("accepts a moov-at-end MP4 and a QuickTime .mov", async () => {
    for (const [fixture, suffix] of [
      [moovEndUrl, ".mp4"],
      [movUrl, ".mov"],
    ] as const) {
      const media = padWithFreeBox(dataUrlBytes(fixture), twoPartSize);
      const created = await createContent({
        contentSize: media.byteLength,
        suffix,
        title: `moov ${suffix}`,
      });
      expect(created.contentUploadData.key).toBe(
        `${created.contentKey}/${created.contentKey}${suffix}`,
      );
      const parts = await uploadParts(created.contentUploadData.signedUrls, media);
      const { res, body } = await writeJson(org, "POST", "/v2/content/complete", {
        uploadId: created.contentUploadData.uploadId,
        key: created.contentUploadData.key,
        parts,
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.duration).toBeCloseTo(2.0, 1);
    }
  });

  it("rejects a non-H.264 file, deletes its media and keeps the content unavailable until E5", async () => {
    const media = dataUrlBytes(mpeg4Url);
    const created = await createContent({ contentSize: media.byteLength, title: "mpeg4" });
    expect(created.contentUploadData.signedUrls).toHaveLength(1);
    const parts = await uploadParts(created.contentUploadData.signedUrls, media);
    const { res, body } = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: created.contentUploadData.uploadId,
      key: created.contentUploadData.key,
      parts,
    });
    expect(res.status).toBe(400);
    expect(body.message).toBe(
      "media rejected: video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    );
    expect(await env.MEDIA.head(created.contentUploadData.key)).toBeNull();
    const { body: fetched } = await writeJson(
      org,
      "GET",
      `/v2/content?contentKey=${created.contentKey}`,
    );
    expect(fetched.status).toBe("rejected");
    expect(fetched.url).toBeNull();
    const again = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: created.contentUploadData.uploadId,
      key: created.contentUploadData.key,
      parts,
    });
    expect(again.res.status).toBe(400);
    expect(again.body.message).toMatch(/rejected/);
    const deleted = await writeJson(org, "DELETE", `/v2/content?contentKey=${created.contentKey}`);
    expect(deleted.res.status).toBe(200);
  });

  it("refuses a faststart file of a codec it cannot transcode at its first part, naming it, and stores nothing", async () => {
    // Moov first, so its codec is in the first bytes of part 1 (of two).
    const media = padWithFreeBox(dataUrlBytes(mpeg4FaststartUrl), twoPartSize);
    const created = await createContent({ contentSize: media.byteLength, title: "mpeg4" });
    const [first] = created.contentUploadData.signedUrls as string[];
    const res = await call(first!, { method: "PUT", body: media.slice(0, CHUNK_SIZE) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message:
        "media rejected: video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    });
    const { body: state } = await writeJson(
      org,
      "GET",
      `/v2/content/upload?contentKey=${created.contentKey}`,
    );
    expect(state.storedParts).toEqual([]);
    expect(state.missingParts.map((p: { PartNumber: number }) => p.PartNumber)).toEqual([1, 2]);
    // A streamed body (no Content-Length) is read ahead the same way.
    const streamed = await call(first!, {
      method: "PUT",
      body: new Blob([media.slice(0, CHUNK_SIZE)]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(400);
    expect(await streamed.json()).toEqual({
      message:
        "media rejected: video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    });
  });

  it("rejects a thumbnail of the wrong size or format and names the problem", async () => {
    const created = await createContent({ contentSize: 1000 });
    const small = await callJson(created.thumbnailUploadUrl, {
      method: "PUT",
      body: dataUrlBytes(smallThumbUrl),
    });
    expect(small.res.status).toBe(400);
    expect(small.body.message).toBe("thumbnail must be 1920x1080, got 1280x720");
    const png = await callJson(created.thumbnailUploadUrl, {
      method: "PUT",
      body: dataUrlBytes(pngUrl),
    });
    expect(png.res.status).toBe(400);
    expect(png.body.message).toBe("thumbnail must be a JPEG image");
    const big = new Uint8Array(5_000_001);
    const tooBig = await callJson(created.thumbnailUploadUrl, { method: "PUT", body: big });
    expect(tooBig.res.status).toBe(400);
    expect(tooBig.body.message).toMatch(/larger than 5 MB/);
    expect(await env.MEDIA.head(`${created.contentKey}/thumbnail.jpg`)).toBeNull();
  });
});

describe("completion rules", () => {
  it("checks key ownership, uploadId and the parts list", async () => {
    const media = padWithFreeBox(dataUrlBytes(faststartUrl), twoPartSize);
    const created = await createContent({ contentSize: media.byteLength });
    const { uploadId, key, signedUrls } = created.contentUploadData;
    const parts = await uploadParts(signedUrls, media);

    const foreign = await writeJson(other, "POST", "/v2/content/complete", {
      uploadId,
      key,
      parts,
    });
    expect(foreign.res.status).toBe(404);

    const wrongId = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: "nope",
      key,
      parts,
    });
    expect(wrongId.res.status).toBe(400);
    expect(wrongId.body.message).toMatch(/uploadId/);

    const missing = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId,
      key,
      parts: parts.slice(0, 1),
    });
    expect(missing.res.status).toBe(400);
    expect(missing.body.message).toBe("parts: expected 2 part(s); missing PartNumber 2");

    const dup = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId,
      key,
      parts: [parts[0], parts[0]],
    });
    expect(dup.body.message).toMatch(/appears more than once/);

    const badEtag = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId,
      key,
      parts: [parts[0], { PartNumber: 2, ETag: "bogus" }],
    });
    expect(badEtag.res.status).toBe(400);
    expect(badEtag.body.message).toMatch(/completing the upload failed/);

    const malformed = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId,
      key,
      parts: [{ PartNumber: "1" }],
    });
    expect(malformed.res.status).toBe(400);
    expect(malformed.body.message).toMatch(/^parts\.0\.PartNumber/);

    // The upload is still open after those failures: completing correctly works.
    const ok = await writeJson(org, "POST", "/v2/content/complete", { uploadId, key, parts });
    expect(ok.res.status).toBe(200);
  });

  it("rejects part bodies of the wrong size", async () => {
    const created = await createContent({ contentSize: twoPartSize });
    const [first, last] = created.contentUploadData.signedUrls;
    const tooBig = await callJson(first, { method: "PUT", body: new Uint8Array(CHUNK_SIZE + 1) });
    expect(tooBig.res.status).toBe(400);
    expect(tooBig.body.message).toBe(
      `part body is ${CHUNK_SIZE + 1} bytes, larger than chunkSize ${CHUNK_SIZE}`,
    );
    const short = await callJson(last, { method: "PUT", body: new Uint8Array(10) });
    expect(short.res.status).toBe(400);
    expect(short.body.message).toBe("part 2 must be exactly 123457 bytes, got 10");
  });
});

describe("the part size a client asks for (E1 chunkSize, an extension)", () => {
  /** E1 through the worker with CHUNK_SIZE at 10 MiB (the service's part size). */
  async function createWith(body: Record<string, unknown>) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${ORIGIN}/v2/content/`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
      { ...env, CHUNK_SIZE: String(2 * CHUNK_SIZE) },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: (await res.json()) as any };
  }

  it("takes smaller parts down to R2's 5 MiB, and the upload completes with them", async () => {
    const media = padWithFreeBox(dataUrlBytes(faststartUrl), CHUNK_SIZE + 300_000);
    const byDefault = await createWith({ contentSize: media.byteLength });
    expect(byDefault.body.contentUploadData.chunkSize).toBe(2 * CHUNK_SIZE);
    expect(byDefault.body.contentUploadData.signedUrls).toHaveLength(1);
    const smaller = await createWith({
      contentSize: media.byteLength,
      chunkSize: CHUNK_SIZE,
      title: "small parts",
    });
    expect(smaller.status, JSON.stringify(smaller.body)).toBe(200);
    expect(smaller.body.contentUploadData.chunkSize).toBe(CHUNK_SIZE);
    expect(smaller.body.contentUploadData.signedUrls).toHaveLength(2);
    const parts = await uploadParts(smaller.body.contentUploadData.signedUrls, media, CHUNK_SIZE);
    const done = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: smaller.body.contentUploadData.uploadId,
      key: smaller.body.contentUploadData.key,
      parts,
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe("available");
  });

  it("refuses a part size under 5 MiB naming the bound, and takes a larger ask down to the service's", async () => {
    for (const chunkSize of [CHUNK_SIZE - 1, 1.5]) {
      const { status, body } = await createWith({ contentSize: 10, chunkSize });
      expect(status, String(chunkSize)).toBe(400);
      expect(body.message, String(chunkSize)).toMatch(
        chunkSize === 1.5
          ? /chunkSize: must be an integer/
          : /chunkSize: must be at least 5242880 bytes \(5 MiB/,
      );
    }
    const larger = await createWith({ contentSize: 10, chunkSize: 4 * CHUNK_SIZE });
    expect(larger.status).toBe(200);
    expect(larger.body.contentUploadData.chunkSize).toBe(2 * CHUNK_SIZE);
  });
});

describe("E4 and E5", () => {
  it("updates every field, replaces names and requires each update field", async () => {
    const created = await createContent({ contentSize: 1000, title: "Old", tags: ["a", "b"] });
    const key = created.contentKey;
    const update = {
      contentKey: key,
      title: "New",
      description: "Described",
      thumbnailUrl: "https://img.example.com/x.jpg",
      categories: ["Sport"],
      tags: ["b", "c"],
      events: [],
      customFields: [{ rating: "PG" }],
      isLive: true,
    };
    const { res, body } = await writeJson(org, "PUT", "/v2/content", update);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ ...update, isLive: true });
    const names = await env.DB.prepare(
      "select l.kind, l.name from content_labels cl join labels l on l.id = cl.label_id join contents c on c.id = cl.content_id where c.content_key = ? order by l.kind, l.name",
    )
      .bind(key)
      .all();
    expect(names.results).toEqual([
      { kind: "category", name: "Sport" },
      { kind: "tag", name: "b" },
      { kind: "tag", name: "c" },
    ]);

    for (const field of [
      "title",
      "description",
      "thumbnailUrl",
      "categories",
      "tags",
      "events",
      "customFields",
    ]) {
      const partial: Record<string, unknown> = { ...update };
      delete partial[field];
      const missing = await writeJson(org, "PUT", "/v2/content", partial);
      expect(missing.res.status).toBe(400);
      expect(missing.body.message).toBe(`${field}: is required`);
    }
    const invalid = await writeJson(org, "PUT", "/v2/content", { ...update, tags: "a,b" });
    expect(invalid.res.status).toBe(400);
    expect(invalid.body.message).toMatch(/^tags:/);
    const unknown = await writeJson(org, "PUT", "/v2/content", {
      ...update,
      contentKey: "Zz999999",
    });
    expect(unknown.res.status).toBe(404);
    expect(unknown.body).toEqual({ message: "contentKey: Zz999999 does not exist" });
  });

  it("deletes metadata, media and thumbnail, and aborts an unfinished upload", async () => {
    const media = padWithFreeBox(dataUrlBytes(faststartUrl), twoPartSize);
    const created = await createContent({ contentSize: media.byteLength, title: "to delete" });
    const { uploadId, key, signedUrls } = created.contentUploadData;
    await call(created.thumbnailUploadUrl, { method: "PUT", body: dataUrlBytes(thumbUrl) });
    await uploadParts(signedUrls.slice(0, 1), media);
    expect(await env.MEDIA.head(`${created.contentKey}/thumbnail.jpg`)).not.toBeNull();

    const foreign = await writeJson(
      other,
      "DELETE",
      `/v2/content?contentKey=${created.contentKey}`,
    );
    expect(foreign.res.status).toBe(404);

    const { res, body } = await writeJson(
      org,
      "DELETE",
      `/v2/content?contentKey=${created.contentKey}`,
    );
    expect(res.status).toBe(200);
    expect(body.title).toBe("to delete");
    expect(await env.MEDIA.head(`${created.contentKey}/thumbnail.jpg`)).toBeNull();
    // The multipart upload is gone: R2 refuses further parts.
    await expect(
      env.MEDIA.resumeMultipartUpload(key, uploadId).uploadPart(2, new Uint8Array(10)),
    ).rejects.toThrow();
    // And the signed URL is dead.
    const late = await call(signedUrls[1], { method: "PUT", body: media.slice(CHUNK_SIZE) });
    expect(late.status).toBe(404);
    expect(
      (await writeJson(org, "GET", `/v2/content?contentKey=${created.contentKey}`)).res.status,
    ).toBe(404);
    expect(
      (await writeJson(org, "DELETE", `/v2/content?contentKey=${created.contentKey}`)).res.status,
    ).toBe(404);
  });
});
