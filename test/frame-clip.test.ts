// The clip a frame is taken from (media/frame-clip.ts, read by domain/content/frame-thumbnails.ts):
// the group of pictures around the time, not the stored file, so that Media Transformations'
// input stays under its documented limit (under 100 MB; time at most 10 minutes) whatever the
// file's size, and the local frame service makes the same frame from it as from the file.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Content } from "../src/db/schema";
import { frameClip, makeFrameThumbnail } from "../src/domain/content/frame-thumbnails";
import { pickClip } from "../src/media/frame-clip";
import {
  type FrameSource,
  frameServiceFrames,
  mediaTransformsFrames,
  thumbnailTime,
} from "../src/media/frames";
import type { RangeReader } from "../src/media/mp4-reader";
import { buildIndex } from "../src/media/packaging/segments";
import { readTracks } from "../src/media/packaging/tracks";
import type { MediaTransformsBinding } from "../src/shared/bindings";
import movUrl from "./fixtures/h264-aac.mov?inline";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import fragNoMfraUrl from "./fixtures/h264-aac-frag-nomfra.mp4?inline";
import moovEndUrl from "./fixtures/h264-aac-moov-end.mp4?inline";
import { dataUrlBytes } from "./helpers";
import { boxPath, fragmentedFile, sparseReader } from "./media-fmp4-synth";

const GiB = 1024 ** 3;
/** Media Transformations' documented limits: an input under 100 MB, a time of at most 10 minutes. */
const MEDIA_TRANSFORMATIONS_MAX_INPUT = 100 * 1000 * 1000;
const MEDIA_TRANSFORMATIONS_MAX_SECONDS = 600;

const forty = dataUrlBytes(fortyUrl);
const bytesReader =
  (bytes: Uint8Array): RangeReader =>
  async (offset, length) =>
    bytes.slice(offset, offset + length);

/** The index and sample table the packager stores for a file, and readers over them. */
async function indexed(read: RangeReader, size: number) {
  const { index, sampleTable } = buildIndex(await readTracks(read, size), 6);
  return { index, table: bytesReader(sampleTable) };
}

/** A frame source over the local frame service (FRAMES), keeping what it was given. */
function recording(): FrameSource & { inputs: { bytes: Uint8Array; atSeconds: number }[] } {
  const local = frameServiceFrames((request) => env.FRAMES!.fetch(request));
  const inputs: { bytes: Uint8Array; atSeconds: number }[] = [];
  return {
    name: local.name,
    inputs,
    async frame({ video, atSeconds }) {
      const bytes =
        video instanceof Uint8Array
          ? video
          : new Uint8Array(await new Response(video).arrayBuffer());
      inputs.push({ bytes, atSeconds });
      return local.frame({ video: bytes, atSeconds });
    },
  };
}

const local = () => frameServiceFrames((request) => env.FRAMES!.fetch(request));

describe("a clip of a 5 GiB, 1-hour file (sparse: only its metadata is in memory)", () => {
  it("is what the Media Transformations adapter is given: one group of pictures, far under its input limit", async () => {
    const fragNoMfra = dataUrlBytes(fragNoMfraUrl);
    const moov = boxPath(fragNoMfra, ["moov"])[0]!;
    const file = fragmentedFile({
      head: fragNoMfra.subarray(0, moov.offset + moov.size),
      videoTimescale: 10240,
      audioTimescale: 44100,
      fragments: 1800,
      fragmentSeconds: 2,
      targetSize: 5 * GiB,
    });
    expect(file.size).toBeGreaterThan(4.99 * GiB);
    const { index, table } = await indexed(sparseReader(file.size, file.segments), file.size);
    expect(index.durationSeconds).toBe(3600);

    const given: { bytes: number; time: string }[] = [];
    const binding: MediaTransformsBinding = {
      input(media) {
        const read = new Response(media).arrayBuffer();
        return {
          transform: () => ({
            output: (options) => ({
              response: async () => {
                given.push({ bytes: (await read).byteLength, time: options.time });
                return new Response(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]));
              },
            }),
          }),
        };
      },
    };
    for (const seconds of [thumbnailTime(3600), 1800, 2345.67, 3599]) {
      const media = sparseReader(file.size, file.segments);
      const { clip, atSeconds } = await frameClip(index, table, media, seconds);
      await mediaTransformsFrames(binding).frame({ video: clip, atSeconds });
      // One group of pictures (2 s of 10 frames of 1,500 bytes) and the next keyframe, at the
      // start of the next fragment (a second read); the last group has none.
      expect(media.reads).toBe(seconds === 3599 ? 1 : 2);
      expect(media.bytes).toBe((seconds === 3599 ? 20 : 21) * 1500);
      expect(clip.length).toBeLessThan(64 * 1024);
      expect(atSeconds).toBeGreaterThanOrEqual(0);
      expect(atSeconds).toBeLessThan(2);
    }
    for (const { bytes, time } of given) {
      expect(bytes).toBeLessThan(MEDIA_TRANSFORMATIONS_MAX_INPUT);
      expect(Number.parseFloat(time)).toBeLessThanOrEqual(MEDIA_TRANSFORMATIONS_MAX_SECONDS);
    }
    // Keyframes every 2 s, each presented one frame (0.1 s) after its decode time: the time
    // in the clip is from the keyframe at or before it.
    expect(given.map((g) => g.time)).toEqual(["1.90s", "1.90s", "1.57s", "0.90s"]);
  });
});

describe("a group of pictures heavier than the clip's budget", () => {
  it("gives way to its keyframe alone, at 0", async () => {
    const { index, table } = await indexed(bytesReader(forty), forty.length);
    const range = await table(0, Number.MAX_SAFE_INTEGER);
    expect(range.length).toBeGreaterThan(0);
    const { clip, atSeconds } = await frameClip(index, table, bytesReader(forty), 5.3);
    expect(atSeconds).toBeCloseTo(1.3, 6);
    expect(clip.length).toBeLessThan(forty.length / 10);
    const records = {
      offsets: [0, 100, 200],
      sizes: [100, 100, 100],
      durations: [1, 1, 1],
      ctos: [0, 0, 0],
      sync: [true, false, false],
    };
    const track = { ...index.video, timescale: 1, presentationStart: 0 };
    expect(pickClip(track, records, 0, 2, 1000)).toMatchObject({ atSeconds: 2 });
    expect(pickClip(track, records, 0, 2, 250)).toMatchObject({
      atSeconds: 0,
      samples: { sizes: [100] },
    });
    expect(() => pickClip(track, records, 0, 2, 50)).toThrow(
      "the keyframe before 2 s is larger than 50 bytes",
    );
  });
});

describe.skipIf(!env.FRAMES)("the local frame service, given the clip instead of the file", () => {
  it.each([
    ["h264-aac-40s-160x90.mp4", fortyUrl, [2, 5.3, 13.9, 20]],
    ["h264-aac-faststart.mp4 (B-frames, an edit list)", faststartUrl, [0.55, 1.45]],
    ["h264-aac.mov", movUrl, [1]],
    ["h264-aac-moov-end.mp4", moovEndUrl, [1.85]],
  ] as const)("%s: makes the same frame (the same JPEG bytes)", async (_name, url, times) => {
    const file = dataUrlBytes(url);
    const { index, table } = await indexed(bytesReader(file), file.length);
    for (const seconds of times) {
      const { clip, atSeconds } = await frameClip(index, table, bytesReader(file), seconds);
      expect(clip.length).toBeLessThan(file.length);
      const fromFile = await local().frame({ video: file, atSeconds: seconds });
      const fromClip = await local().frame({ video: clip, atSeconds });
      expect(fromClip.length).toBeGreaterThan(0);
      expect(fromClip, `${seconds} s`).toEqual(fromFile);
    }
  });

  it("a thumbnail made after E2 is taken from a clip of the stored file, the same frame as from the file", async () => {
    const contentKey = `clip-${crypto.randomUUID()}`;
    const mediaKey = `${contentKey}/media.mp4`;
    await env.MEDIA.put(mediaKey, forty);
    const frames = recording();
    const content = {
      id: 900_000 + Math.floor(Math.random() * 100_000),
      contentKey,
      mediaKey,
      duration: 40,
      thumbnailUrl: null,
      thumbnailUploaded: false,
    } as unknown as Content;
    const outcome = await makeFrameThumbnail(
      { bucket: env.MEDIA, config: { hlsSegmentSeconds: 6 }, frames },
      content,
    );
    expect(outcome).toBe("made");
    expect(frames.inputs).toHaveLength(1);
    const [input] = frames.inputs;
    // A clip (an MP4 of its own: ftyp first), one group of pictures of a 20-group file.
    expect(new TextDecoder().decode(input!.bytes.subarray(4, 8))).toBe("ftyp");
    expect(input!.bytes.length).toBeLessThan(forty.length / 10);
    const stored = new Uint8Array(
      await (await env.MEDIA.get(`${contentKey}/frame.jpg`))!.arrayBuffer(),
    );
    expect(stored).toEqual(await local().frame({ video: forty, atSeconds: thumbnailTime(40) }));
  });
});
