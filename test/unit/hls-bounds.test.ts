// The packager is bounded by the file (issue 34): sample counts are checked before any array is
// made, the index has a budget, and nothing spreads a per-sample or per-segment array into
// arguments. The same files through E2 and the stream: test/malformed-corpus.test.ts.
import { describe, expect, it } from "vitest";
import { MediaProbeError } from "../../src/media/bmff/reader";
import { mediaSegment } from "../../src/media/packaging/fmp4";
import { mediaPlaylist } from "../../src/media/packaging/hls/playlists";
import { buildIndex, type HlsIndex, type SegmentEntry } from "../../src/media/packaging/segments";
import {
  MAX_INDEX_SAMPLES,
  PackagingBudgetExceeded,
  readTracks,
} from "../../src/media/packaging/tracks";
import { dataUrlBytes } from "../fixture-bytes";
import faststartUrl from "../fixtures/h264-aac-faststart.mp4?inline";
import fragUrl from "../fixtures/h264-aac-frag.mp4?inline";
import { patched, tableAt } from "../malformed-corpus";
import { boxesIn, boxPath, concat, u32 } from "../media-fmp4-synth";

const faststart = dataUrlBytes(faststartUrl);
const frag = dataUrlBytes(fragUrl);

const readerOf = (bytes: Uint8Array) => async (offset: number, length: number) =>
  bytes.subarray(offset, Math.min(offset + length, bytes.length));

const tracksOf = (bytes: Uint8Array) => readTracks(readerOf(bytes), bytes.length);

/** The faststart fixture's index with `count` segments of 6 s (as a 333-hour file would have). */
async function longIndex(count: number): Promise<HlsIndex> {
  const { video } = await tracksOf(faststart);
  const { index } = buildIndex({ video, audio: null }, 6);
  const segment: SegmentEntry = { ...index.segments[0]!, duration: 6 };
  return { ...index, segments: Array.from({ length: count }, () => segment) };
}

describe("sample counts the file cannot hold", () => {
  it("refuses a trun of 2^32-1 samples without sizes before adding any", async () => {
    const trun = boxPath(frag, ["moof", "traf", "trun"]).at(-1)!.offset;
    const bomb = patched(frag, [
      [trun + 8, 0x000001],
      [trun + 12, 0xffffffff],
    ]);
    const started = performance.now();
    await expect(tracksOf(bomb)).rejects.toThrow(
      /'trun' box claims 4294967295 samples of \d+ bytes, more than the 'mdat' box at byte \d+ holds/,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("refuses a fixed-size stsz claiming more samples than the file holds", async () => {
    const stsz = tableAt(faststart, "stsz");
    const file = patched(faststart, [
      [stsz + 12, 100],
      [stsz + 16, 8_000_000],
    ]);
    await expect(tracksOf(file)).rejects.toThrow(MediaProbeError);
    await expect(tracksOf(file)).rejects.toThrow(/'stsz' box claims 8000000 samples of 100 bytes/);
  });

  it("gives up a file over the index's budget of samples, before making its arrays", async () => {
    // One-byte samples in a file big enough to hold them: the file is not at fault, the
    // packager's memory is.
    const stsz = tableAt(faststart, "stsz");
    const count = MAX_INDEX_SAMPLES + 1;
    const free = new Uint8Array(count);
    free.set(concat(u32(count), new Uint8Array([0x66, 0x72, 0x65, 0x65])));
    const file = concat(
      patched(faststart, [
        [stsz + 12, 1],
        [stsz + 16, count],
      ]),
      free,
    );
    const before = process.memoryUsage().heapUsed;
    await expect(tracksOf(file)).rejects.toThrow(PackagingBudgetExceeded);
    await expect(tracksOf(file)).rejects.toThrow(/more than 600,000 samples/);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16e6);
  });
});

describe("no spreading of per-segment or per-sample arrays", () => {
  it("writes the media playlist of 200,000 segments", async () => {
    const text = mediaPlaylist(await longIndex(200_000));
    expect(text.match(/#EXTINF:6\.000,/g)).toHaveLength(200_000);
    expect(text).toContain("#EXT-X-TARGETDURATION:6\n");
    expect(text).toContain("199999.m4s\n#EXT-X-ENDLIST");
  });

  it("builds a media segment of 200,000 samples", async () => {
    const { video } = await tracksOf(faststart);
    const { index } = buildIndex({ video, audio: null }, 6);
    const n = 200_000;
    const records = {
      offsets: new Array<number>(n).fill(0),
      sizes: new Array<number>(n).fill(1),
      durations: new Array<number>(n).fill(1),
      ctos: new Array<number>(n).fill(0),
      sync: new Array<boolean>(n).fill(true),
    };
    const data = Array.from({ length: n }, (_, i) => new Uint8Array([i & 0xff]));
    const bytes = mediaSegment(1, [{ track: index.video, decodeTime: 0, samples: records, data }]);
    const top = boxesIn(bytes);
    expect(top.map((b) => b.type)).toEqual(["moof", "mdat"]);
    expect(top[1]!.size).toBe(8 + n);
  });
});
