// Thumbnails made from the video (domain/content/frame-thumbnails.ts) through the local frame
// service: ffmpeg, bound as FRAMES (vitest.config.ts; skipped without ffmpeg). The production
// adapter, Media Transformations, is checked by the request it makes of its binding.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_THUMBNAIL_JPEG } from "../src/media/default-thumbnail";
import { FLAT_FRAME_MAX_BYTES, mediaTransformsFrames, thumbnailTime } from "../src/media/frames";
import { checkThumbnail, readJpegInfo } from "../src/media/jpeg";
import type { MediaTransformsBinding } from "../src/shared/bindings";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import thumbUrl from "./fixtures/thumb-1920x1080.jpg?inline";
import {
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  SETTLED_MS,
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

/** The frame stored for a content, once the work after E2 has stored it. */
async function frameOf(key: string): Promise<Uint8Array> {
  await expect
    .poll(async () => (await env.MEDIA.head(`${key}/frame.jpg`)) !== null, { timeout: SETTLED_MS })
    .toBe(true);
  return new Uint8Array(await (await env.MEDIA.get(`${key}/frame.jpg`))!.arrayBuffer());
}

describe.skipIf(!env.FRAMES)("a thumbnail from the video (local ffmpeg frame service)", () => {
  it("is made for a video published without one: a 1920x1080 JPEG of a frame, served at the record's thumbnail URL", async () => {
    const key = await publishVideo(org, mp4);
    const frame = await frameOf(key);
    expect(checkThumbnail(frame)).toBeNull();
    expect(readJpegInfo(frame)).toEqual({ width: 1920, height: 1080 });
    // A picture (the test pattern), not a flat colour.
    expect(frame.length).toBeGreaterThan(FLAT_FRAME_MAX_BYTES);
    const e3 = await callJson(`/v2/content?contentKey=${key}`, {
      headers: {
        "X-Service-Sync-Code": org.syncCode,
        "X-Service-Api-Key": org.apiKey,
        "X-Service-Api-Secret": org.apiSecret,
      },
    });
    const served = await call(new URL(e3.body.thumbnailUrl).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get("Cache-Control")).toBe("public, max-age=60");
    const bytes = new Uint8Array(await served.arrayBuffer());
    expect(bytes).toEqual(frame);
    expect(bytes).not.toEqual(DEFAULT_THUMBNAIL_JPEG);
  });

  it("is made for a long video too (2 s in)", async () => {
    const key = await publishVideo(org, dataUrlBytes(fortyUrl));
    expect(readJpegInfo(await frameOf(key))).toEqual({ width: 1920, height: 1080 });
  });

  it("never replaces the publisher's thumbnail: one uploaded before E2 means no frame, one after wins", async () => {
    const created = await writeJson(org, "POST", "/v2/content/", { contentSize: mp4.length });
    const key = created.body.contentKey;
    expect(
      (await call(created.body.thumbnailUploadUrl, { method: "PUT", body: thumb })).status,
    ).toBe(200);
    const parts = await uploadParts(created.body.contentUploadData.signedUrls, mp4);
    const done = await writeJson(org, "POST", "/v2/content/complete", {
      uploadId: created.body.contentUploadData.uploadId,
      key: created.body.contentUploadData.key,
      parts,
    });
    expect(done.res.status).toBe(200);
    const later = await publishVideo(org, mp4);
    await frameOf(later);
    // The work after both E2s has run (the later one's frame exists): none for the first.
    expect(await env.MEDIA.head(`${key}/frame.jpg`)).toBeNull();
    expect(new Uint8Array(await (await call(`/thumbnails/${key}.jpg?v=1`)).arrayBuffer())).toEqual(
      thumb,
    );

    const fresh = await writeJson(org, "POST", "/v2/content/thumbnail", { contentKey: later });
    expect((await call(fresh.body.thumbnailUploadUrl, { method: "PUT", body: thumb })).status).toBe(
      200,
    );
    expect(
      new Uint8Array(await (await call(`/thumbnails/${later}.jpg?v=1`)).arrayBuffer()),
    ).toEqual(thumb);
  });

  it("is deleted with its content", async () => {
    const key = await publishVideo(org, mp4);
    await frameOf(key);
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${key}`)).res.status).toBe(200);
    expect(await env.MEDIA.head(`${key}/frame.jpg`)).toBeNull();
  });
});

describe("where the frame is taken", () => {
  it("2 s in, or 10 % into a video shorter than 20 s", () => {
    expect(thumbnailTime(3600)).toBe(2);
    expect(thumbnailTime(20)).toBe(2);
    expect(thumbnailTime(10)).toBe(1);
    expect(thumbnailTime(2)).toBeCloseTo(0.2);
  });
});

describe("the Media Transformations adapter (production)", () => {
  it("asks the binding for one JPEG frame of the stored video, fitted into 1920x1080, at the time given", async () => {
    const calls: unknown[] = [];
    const binding: MediaTransformsBinding = {
      input(media) {
        calls.push(["input", media instanceof ReadableStream]);
        return {
          transform(options) {
            calls.push(["transform", options]);
            return {
              output(options) {
                calls.push(["output", options]);
                return {
                  response: async () =>
                    new Response(thumb, { headers: { "Content-Type": "image/jpeg" } }),
                };
              },
            };
          },
        };
      },
    };
    const video = new Blob([mp4]).stream();
    const jpeg = await mediaTransformsFrames(binding).frame({ video, atSeconds: 2 });
    expect(jpeg).toEqual(thumb);
    expect(calls).toEqual([
      ["input", true],
      ["transform", { width: 1920, height: 1080, fit: "contain" }],
      ["output", { mode: "frame", time: "2.00s", format: "jpg" }],
    ]);
  });

  it("turns an error answer into an error that names it", async () => {
    const binding: MediaTransformsBinding = {
      input: () => ({
        transform: () => ({
          output: () => ({
            response: async () => new Response("input too large", { status: 413 }),
          }),
        }),
      }),
    };
    await expect(
      mediaTransformsFrames(binding).frame({ video: new Blob([mp4]).stream(), atSeconds: 1 }),
    ).rejects.toThrow(/media transformations: HTTP 413 input too large/);
  });
});
