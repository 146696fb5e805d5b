// Fragmented MP4 through the real upload flow (E1 create, PUT parts to the
// signed URLs, E2 complete, E3 retrieve): accepted with its real duration,
// which the probe reads from R2 with ranged reads.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import fragUrl from "./fixtures/h264-aac-frag.mp4?inline";
import fragNoMfraUrl from "./fixtures/h264-aac-frag-nomfra.mp4?inline";
import {
  CHUNK_SIZE,
  createOrg,
  dataUrlBytes,
  padWithFreeBox,
  publishVideo,
  type TestOrg,
  uploadParts,
  writeJson,
} from "./helpers";
import { boxesIn, concat, u32 } from "./media-fmp4-synth";

let org: TestOrg;

beforeAll(async () => {
  org = await createOrg();
});

const frag = dataUrlBytes(fragUrl);
const fragNoMfra = dataUrlBytes(fragNoMfraUrl);
/** ffprobe's format duration of both fixtures (the AAC track, priming included). */
const FIXTURE_SECONDS = 2.2;

/** E1, PUT every part, E2: returns the E2 response. */
async function upload(media: Uint8Array, title: string) {
  const created = await writeJson(org, "POST", "/v2/content/", {
    contentSize: media.byteLength,
    title,
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  const upload = created.body.contentUploadData;
  expect(upload.signedUrls).toHaveLength(Math.ceil(media.byteLength / CHUNK_SIZE));
  const parts = await uploadParts(upload.signedUrls, media);
  const done = await writeJson(org, "POST", "/v2/content/complete", {
    uploadId: upload.uploadId,
    key: upload.key,
    parts,
  });
  return { key: upload.key as string, contentKey: created.body.contentKey as string, ...done };
}

/** A `free` box of `size` bytes. */
function freeBox(size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(concat(u32(size), new Uint8Array([0x66, 0x72, 0x65, 0x65])));
  return out;
}

describe("fragmented MP4 upload", () => {
  it("accepts ffmpeg's frag_keyframe+empty_moov output with its real duration (E3)", async () => {
    const contentKey = await publishVideo(org, frag, { title: "fragmented" });
    const { res, body } = await writeJson(org, "GET", `/v2/content?contentKey=${contentKey}`);
    expect(res.status).toBe(200);
    expect(body.status).toBe("available");
    expect(Math.abs(body.duration - FIXTURE_SECONDS)).toBeLessThanOrEqual(0.1);
    const row = await env.DB.prepare(
      "select width, height, video_codec, audio_codec from contents where content_key = ?",
    )
      .bind(contentKey)
      .first();
    expect(row).toEqual({ width: 320, height: 180, video_codec: "avc1", audio_codec: "mp4a.40.2" });
  });

  it("reads the mfra at the end of a two-part upload", async () => {
    // A free box before the mfra makes the file span two parts; the mfro still
    // ends the file and every offset before it stays valid.
    const mfra = boxesIn(frag).find((b) => b.type === "mfra")!;
    const media = concat(
      frag.subarray(0, mfra.offset),
      freeBox(CHUNK_SIZE),
      frag.subarray(mfra.offset),
    );
    const { res, body } = await upload(media, "fragmented, two parts");
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe("available");
    expect(Math.abs(body.duration - FIXTURE_SECONDS)).toBeLessThanOrEqual(0.1);
  });

  it("walks the fragments of a two-part upload without mfra", async () => {
    const media = padWithFreeBox(fragNoMfra, CHUNK_SIZE + 10_000);
    const { res, body } = await upload(media, "fragmented, no mfra");
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(Math.abs(body.duration - FIXTURE_SECONDS)).toBeLessThanOrEqual(0.1);
  });

  it("rejects a long fragmented file without mehd or mfra, names why, and deletes it", async () => {
    // 80 fragments of 20 KB after the fixture's moov: each one needs a read of its own.
    const moov = boxesIn(fragNoMfra).find((b) => b.type === "moov")!;
    const moof = boxesIn(fragNoMfra).find((b) => b.type === "moof")!;
    const mdatSize = 20_000;
    const mdat = concat(
      u32(mdatSize),
      new Uint8Array([0x6d, 0x64, 0x61, 0x74]),
      new Uint8Array(mdatSize - 8),
    );
    const fragment = concat(fragNoMfra.subarray(moof.offset, moof.offset + moof.size), mdat);
    const media = concat(
      fragNoMfra.subarray(0, moov.offset + moov.size),
      ...Array.from({ length: 80 }, () => fragment),
    );
    const { res, body, key, contentKey } = await upload(media, "fragmented, no index");
    expect(res.status).toBe(400);
    expect(body.message).toMatch(
      /^media rejected: cannot determine the duration of this fragmented MP4: it has no mehd or mfra box/,
    );
    expect(await env.MEDIA.head(key)).toBeNull();
    const { body: fetched } = await writeJson(org, "GET", `/v2/content?contentKey=${contentKey}`);
    expect(fetched.status).toBe("rejected");
  });
});
