/**
 * A transcoding job's input: a run of whole segments of the source's HLS index (about two
 * minutes, cut on segment boundaries), as a standalone video-only MP4 built from the stored
 * file with ranged reads (the frame clip's writer, media/frame-clip.ts), and the times of the
 * segment boundaries inside it, where the rendition's keyframes must fall. Pure: the domain
 * does the reads (domain/renditions.ts).
 */
import { clipHead } from "../frame-clip";
import { coalesce } from "../packaging/packager";
import { type HlsIndex, readRecords, recordRange, type SampleRecords } from "../packaging/segments";

/** Segments [first, last] of the index: one job's chunk. */
export interface ChunkSpan {
  first: number;
  last: number;
}

/** The index's segments in runs of about `chunkSeconds` (each at least one segment). */
export function planChunks(index: HlsIndex, chunkSeconds: number): ChunkSpan[] {
  const chunks: ChunkSpan[] = [];
  let first = 0;
  let seconds = 0;
  index.segments.forEach((segment, n) => {
    seconds += segment.duration;
    if (seconds >= chunkSeconds || n === index.segments.length - 1) {
      chunks.push({ first, last: n });
      first = n + 1;
      seconds = 0;
    }
  });
  return chunks;
}

/** Where the chunk's records are in the sample table: one read. */
export function chunkRecordRange(index: HlsIndex, span: ChunkSpan) {
  const first = recordRange(index.segments[span.first]!);
  const last = recordRange(index.segments[span.last]!);
  return { offset: first.offset, length: last.offset + last.length - first.offset };
}

/** A chunk ready to stream: its head, then the stored file's byte spans as they are. */
export interface ChunkPlan {
  head: Uint8Array;
  /** Byte ranges of the stored file, in order, that make up the mdat's payload. */
  spans: { offset: number; end: number }[];
  /**
   * Presentation time of each segment's first frame in the chunk, in the video's timescale,
   * the first 0: where the rendition's keyframes go.
   */
  cuts: number[];
  /**
   * Presentation time of the chunk's first frame in the source (video timescale, after the
   * track's presentation start): where the rendition's chunk is placed.
   */
  start: number;
}

/** The chunk of `span` from its records (the bytes read at chunkRecordRange). */
export function planChunk(index: HlsIndex, span: ChunkSpan, table: Uint8Array): ChunkPlan {
  const parts: SampleRecords[] = [];
  const firstCtos: number[] = [];
  const decodeTimes: number[] = [];
  for (let n = span.first, at = 0; n <= span.last; n++) {
    const segment = index.segments[n]!;
    const { length } = recordRange(segment);
    const { video } = readRecords(table.subarray(at, at + length), segment);
    parts.push(video);
    firstCtos.push(video.ctos[0] ?? 0);
    decodeTimes.push(segment.video.decodeTime);
    at += length;
  }
  const samples: SampleRecords = {
    offsets: parts.flatMap((p) => p.offsets),
    sizes: parts.flatMap((p) => p.sizes),
    durations: parts.flatMap((p) => p.durations),
    ctos: parts.flatMap((p) => p.ctos),
    sync: parts.flatMap((p) => p.sync),
  };
  if (!samples.sync[0]) throw new Error("a chunk must start with a keyframe");
  const spans = coalesce([samples]);
  const spanBase: number[] = [];
  let payload = 0;
  for (const s of spans) {
    spanBase.push(payload);
    payload += s.end - s.offset;
  }
  const payloadOffsets = samples.offsets.map((offset) => {
    let lo = 0;
    let hi = spans.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (spans[mid]!.offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return spanBase[lo]! + offset - spans[lo]!.offset;
  });
  const pts = (k: number) => decodeTimes[k]! + firstCtos[k]!;
  return {
    head: clipHead(index.video, samples, payloadOffsets, payload),
    spans,
    cuts: decodeTimes.map((_, k) => pts(k) - pts(0)),
    start: pts(0) - index.video.presentationStart,
  };
}
