// What the packager tells players about a stream's cost and start: each segment's bytes per
// track (a DASH Representation's bandwidth is its own track's), the served segment's size the
// bit rates count, a short first segment, and the variant the master playlist lists first.
import { describe, expect, it } from "vitest";
import { bitrates, partBytes } from "../../src/media/packaging/bitrates";
import { packageSegment } from "../../src/media/packaging/packager";
import {
  buildIndex,
  FIRST_SEGMENT_SECONDS,
  hasVideoBytes,
  type SegmentPart,
  withVideoBytes,
} from "../../src/media/packaging/segments";
import { readTracks } from "../../src/media/packaging/tracks";
import { inStartOrder, START_BANDWIDTH } from "../../src/media/packaging/variants";
import { dataUrlBytes } from "../fixture-bytes";
import fortyUrl from "../fixtures/h264-aac-40s-160x90.mp4?inline";

const forty = dataUrlBytes(fortyUrl);
const readerOf = (bytes: Uint8Array) => async (offset: number, length: number) =>
  bytes.subarray(offset, Math.min(offset + length, bytes.length));

/** The 40 s fixture (a keyframe every 2 s) cut into 6 s segments, and its sample table. */
async function fortyIndex() {
  return buildIndex(await readTracks(readerOf(forty), forty.length), 6);
}

describe("the index", () => {
  it("cuts the first segment at the first keyframe FIRST_SEGMENT_SECONDS in, the others at the target", async () => {
    const { index } = await fortyIndex();
    expect(FIRST_SEGMENT_SECONDS).toBe(2);
    expect(index.segments.map((s) => s.duration)).toEqual([2, 6, 6, 6, 6, 6, 6, 2]);
  });

  it("keeps each segment's video bytes; an index stored without them gets the same from its table", async () => {
    const { index, sampleTable } = await fortyIndex();
    for (const s of index.segments) {
      expect(s.videoBytes).toBeGreaterThan(0);
      expect(s.videoBytes).toBeLessThan(s.bytes);
    }
    const old = {
      ...index,
      segments: index.segments.map(({ videoBytes: _, ...s }) => s),
    } as unknown as typeof index;
    expect(hasVideoBytes(old)).toBe(false);
    const upgraded = withVideoBytes(old, sampleTable);
    expect(hasVideoBytes(upgraded)).toBe(true);
    expect(upgraded.segments).toEqual(index.segments);
  });
});

describe("the bytes the bit rates count", () => {
  it("are each served segment's, headers included (4 bytes a sample over at most)", async () => {
    const { index, sampleTable } = await fortyIndex();
    const parts: SegmentPart[] = ["muxed", "video", "audio"];
    for (const [n, segment] of index.segments.entries())
      for (const part of parts) {
        const served = await packageSegment(index, n, readerOf(sampleTable), readerOf(forty), part);
        const samples =
          (part === "audio" ? 0 : segment.video.count) +
          (part === "video" ? 0 : (segment.audio?.count ?? 0));
        const counted = partBytes(index, segment, part);
        expect(counted, `${part} ${n}`).toBeGreaterThanOrEqual(served.length);
        expect(counted - served.length, `${part} ${n}`).toBeLessThanOrEqual(4 * samples);
      }
  });

  it("give each track its own peak; the two add up to about the muxed stream's", async () => {
    const { index } = await fortyIndex();
    const muxed = bitrates(index);
    const video = bitrates(index, "video");
    const audio = bitrates(index, "audio");
    expect(video.peak).toBeLessThan(muxed.peak);
    expect(audio.peak).toBeLessThan(muxed.peak);
    expect(audio.average + video.average).toBeGreaterThanOrEqual(muxed.average);
    // Two segments' headers instead of one: a few hundred bytes a segment more.
    expect(audio.average + video.average).toBeLessThan(muxed.average * 1.05);
    for (const [n, s] of index.segments.entries()) {
      expect((partBytes(index, s, "video") * 8) / s.duration, `${n}`).toBeLessThanOrEqual(
        video.peak,
      );
      expect((partBytes(index, s, "audio") * 8) / s.duration, `${n}`).toBeLessThanOrEqual(
        audio.peak,
      );
    }
  });
});

describe("inStartOrder", () => {
  const ladder = [6_200_000, 3_600_000, 2_500_000, 640_000, 300_000];
  it("lists first the highest variant within START_BANDWIDTH, then the others highest first", () => {
    expect(START_BANDWIDTH).toBe(1_000_000);
    expect(inStartOrder(ladder, (v) => v)).toEqual([
      640_000, 6_200_000, 3_600_000, 2_500_000, 300_000,
    ]);
  });
  it("starts on the lowest when none fits, and keeps a single variant as it is", () => {
    expect(inStartOrder([6_200_000, 3_600_000], (v) => v)).toEqual([3_600_000, 6_200_000]);
    expect(inStartOrder([6_200_000], (v) => v)).toEqual([6_200_000]);
    expect(inStartOrder([], (v: number) => v)).toEqual([]);
  });
});
