/**
 * A media segment from the stored file: the segment's sample records (one ranged read of the
 * sample table), then its samples' bytes with as few ranged reads of the file as the layout
 * allows (nearby samples, e.g. interleaved audio and video chunks, share one read), then the
 * moof + mdat. Memory is bounded by the segment (plus the small gaps read through).
 */
import type { RangeReader } from "../mp4-reader";
import { mediaSegment, type TrackRun } from "./fmp4";
import {
  type HlsIndex,
  partRange,
  readPartRecords,
  type SampleRecords,
  type SegmentPart,
} from "./segments";

/** Samples closer than this are fetched in one read (the bytes between them are read and dropped). */
export const READ_GAP_BYTES = 256 * 1024;

interface Span {
  offset: number;
  end: number;
}

/** Sorted, merged byte spans covering every sample (gaps up to `gap` bytes read through). */
export function coalesce(samples: SampleRecords[], gap = READ_GAP_BYTES): Span[] {
  const spans: Span[] = [];
  for (const s of samples)
    for (let i = 0; i < s.sizes.length; i++)
      spans.push({ offset: s.offsets[i]!, end: s.offsets[i]! + s.sizes[i]! });
  spans.sort((a, b) => a.offset - b.offset);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.offset - last.end <= gap) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/**
 * Segment `n` (0-based) of the index, as fMP4 bytes: both tracks in one moof (HLS), or one
 * track (DASH: an AdaptationSet per track). A part a segment does not have is a RangeError.
 */
export async function packageSegment(
  index: HlsIndex,
  n: number,
  readTable: RangeReader,
  readMedia: RangeReader,
  part: SegmentPart = "muxed",
): Promise<Uint8Array> {
  const segment = index.segments[n];
  if (!segment) throw new RangeError(`no segment ${n}`);
  if (part === "audio" && !(index.audio && segment.audio)) throw new RangeError("no audio");
  const range = partRange(segment, part);
  const { video, audio } = readPartRecords(
    await readTable(range.offset, range.length),
    segment,
    part,
  );
  const tracks = [video, audio].filter((t): t is SampleRecords => t !== null);
  const spans = coalesce(tracks);
  const chunks = await Promise.all(spans.map((s) => readMedia(s.offset, s.end - s.offset)));
  const bytesAt = (offset: number, size: number): Uint8Array => {
    // Spans are sorted and disjoint: a binary search finds the one holding the sample.
    let lo = 0;
    let hi = spans.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (spans[mid]!.offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    const chunk = chunks[lo]!;
    const from = offset - spans[lo]!.offset;
    if (from + size > chunk.length)
      throw new Error("the stored file is shorter than its sample table says");
    return chunk.subarray(from, from + size);
  };
  const run = (records: SampleRecords, track: HlsIndex["video"], decodeTime: number): TrackRun => ({
    track,
    decodeTime,
    samples: records,
    data: records.sizes.map((size, i) => bytesAt(records.offsets[i]!, size)),
  });
  const runs: TrackRun[] = [];
  if (video) runs.push(run(video, index.video, segment.video.decodeTime));
  if (audio && index.audio && segment.audio)
    runs.push(run(audio, index.audio, segment.audio.decodeTime));
  return mediaSegment(n + 1, runs);
}
