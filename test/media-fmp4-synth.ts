// Builders for MP4 boxes and for large, sparse fragmented files, used by the
// fragmented-MP4 tests. A sparse file holds only its box headers and metadata;
// every other byte (media data) reads as zero, so a 5 GiB file costs a few MB.
import {
  SAMPLE_DEPENDS_ON_NONE,
  SAMPLE_DEPENDS_ON_OTHERS,
  SAMPLE_IS_NON_SYNC,
  TRUN_DATA_OFFSET,
  TRUN_SAMPLE_CTO,
  TRUN_SAMPLE_DURATION,
  TRUN_SAMPLE_FLAGS,
  TRUN_SAMPLE_SIZE,
} from "../src/media/bmff/boxes";
import {
  box,
  concat as concatParts,
  fullBox,
  tfdt,
  tfhd,
  u32,
  u64,
} from "../src/media/bmff/writer";
import type { RangeReader } from "../src/media/mp4-probe";

// The boxes are the service's own writer's (src/media/bmff/writer.ts).
export { box, fullBox, u32, u64 };

export function concat(...parts: Uint8Array[]): Uint8Array {
  return concatParts(parts);
}

function ascii(type: string): Uint8Array {
  return new Uint8Array([...type].map((c) => c.charCodeAt(0)));
}

/** A box header with a 64-bit largesize (for a multi-GB mdat). */
export function largeBoxHeader(type: string, size: number): Uint8Array {
  return concat(u32(1), ascii(type), u64(size));
}

export interface FoundBox {
  type: string;
  offset: number;
  size: number;
}

/** Boxes in [start, end) of `bytes` (32-bit sizes only; enough for the fixtures). */
export function boxesIn(bytes: Uint8Array, start = 0, end = bytes.length): FoundBox[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: FoundBox[] = [];
  for (let offset = start; offset + 8 <= end; ) {
    const size = view.getUint32(offset);
    found.push({
      type: String.fromCharCode(...bytes.subarray(offset + 4, offset + 8)),
      offset,
      size,
    });
    if (size < 8) break;
    offset += size;
  }
  return found;
}

/** Follows a path of nested boxes (e.g. ["moov", "mvex"]); every box on it, outermost first. */
export function boxPath(bytes: Uint8Array, path: string[]): FoundBox[] {
  const chain: FoundBox[] = [];
  let start = 0;
  let end = bytes.length;
  for (const type of path) {
    const found = boxesIn(bytes, start, end).find((b) => b.type === type);
    if (!found) throw new Error(`no ${path.join("/")} box`);
    chain.push(found);
    start = found.offset + 8;
    end = found.offset + found.size;
  }
  return chain;
}

/**
 * Inserts `child` at the start of the payload of the box at `path`, growing
 * every enclosing box. Offsets after the insertion point move: only safe for
 * files whose fragments use moof-relative offsets and have no mfra.
 */
export function insertChild(bytes: Uint8Array, path: string[], child: Uint8Array): Uint8Array {
  const chain = boxPath(bytes, path);
  const at = chain[chain.length - 1]!.offset + 8;
  const out = concat(bytes.subarray(0, at), child, bytes.subarray(at));
  const view = new DataView(out.buffer);
  for (const b of chain) view.setUint32(b.offset, b.size + child.length);
  return out;
}

/** An mehd box (version 0): the whole duration in the movie timescale. */
export function mehd(duration: number): Uint8Array {
  return fullBox("mehd", 0, 0, u32(duration));
}

// ---------------------------------------------------------------------------
// Sparse files.
// ---------------------------------------------------------------------------

export interface Segment {
  offset: number;
  bytes: Uint8Array;
}

/** A RangeReader over a sparse file, counting the requests it serves and the bytes it returns. */
export interface CountingReader extends RangeReader {
  reads: number;
  bytes: number;
}

/** Serves `segments` (sorted, non-overlapping) at their offsets and zeros elsewhere. */
export function sparseReader(size: number, segments: Segment[]): CountingReader {
  const read = async (offset: number, length: number): Promise<Uint8Array> => {
    counter.reads++;
    const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
    const end = offset + out.length;
    // Binary search for the first segment that ends after `offset`.
    let lo = 0;
    let hi = segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const s = segments[mid]!;
      if (s.offset + s.bytes.length <= offset) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < segments.length && segments[i]!.offset < end; i++) {
      const s = segments[i]!;
      const from = Math.max(offset, s.offset);
      const to = Math.min(end, s.offset + s.bytes.length);
      out.set(s.bytes.subarray(from - s.offset, to - s.offset), from - offset);
    }
    counter.bytes += out.length;
    return out;
  };
  const counter = Object.assign(read, { reads: 0, bytes: 0 });
  return counter;
}

/** Lays out parts back to back; a number is a run of zeros of that length (e.g. mdat payload). */
export function layout(parts: Array<Uint8Array | number>): { size: number; segments: Segment[] } {
  const segments: Segment[] = [];
  let offset = 0;
  for (const p of parts) {
    if (typeof p === "number") {
      offset += p;
    } else {
      segments.push({ offset, bytes: p });
      offset += p.length;
    }
  }
  return { size: offset, segments };
}

// ---------------------------------------------------------------------------
// A long fragmented file, built on the moov of a real fragmented fixture.
// ---------------------------------------------------------------------------

export interface FragmentedFileOptions {
  /** ftyp + moov of a real fragmented file with track 1 = video, track 2 = audio (44.1 kHz). */
  head: Uint8Array;
  videoTimescale: number;
  audioTimescale: number;
  fragments: number;
  fragmentSeconds: number;
  /** Approximate total size; the mdat boxes share what the metadata leaves. */
  targetSize: number;
  /** Write a tfdt in each traf (default true). */
  tfdt?: boolean;
  /** Append an mfra (tfra for both tracks, one entry per fragment) and its mfro. */
  mfra?: boolean;
  /** One moof per track and fragment (video, then audio) instead of one moof with both trafs. */
  moofPerTrack?: boolean;
}

export interface FragmentedFile {
  size: number;
  segments: Segment[];
  /** End of the longest track, in seconds: what a correct probe reports. */
  durationSeconds: number;
}

/**
 * Fragments of `fragmentSeconds` each: a moof (mfhd, then a traf per track
 * with tfhd, tfdt and a trun with per-sample durations and sizes) and an
 * mdat of zeros, or a moof + mdat pair per track (`moofPerTrack`). Video
 * has 10 frames per second; audio has 1024-sample AAC frames, split between
 * fragments as an encoder would (86 or 87 per 2 s).
 */
const AUDIO_TRUN = TRUN_DATA_OFFSET | TRUN_SAMPLE_DURATION | TRUN_SAMPLE_SIZE;
const VIDEO_TRUN = AUDIO_TRUN | TRUN_SAMPLE_FLAGS | TRUN_SAMPLE_CTO;

export function fragmentedFile(o: FragmentedFileOptions): FragmentedFile {
  const withTfdt = o.tfdt ?? true;
  const videoFrameDuration = o.videoTimescale / 10;
  const videoPerFragment = Math.round(10 * o.fragmentSeconds);
  const audioSamplesPerFragment = o.audioTimescale * o.fragmentSeconds;

  // Each moof with the index of its fragment and the tracks it holds (for tfra).
  const moofs: Array<{ bytes: Uint8Array; fragment: number; tracks: number[] }> = [];
  const times: Array<{ video: number; audio: number }> = [];
  let audioFrames = 0;
  for (let i = 0; i < o.fragments; i++) {
    const videoStart = i * videoPerFragment * videoFrameDuration;
    const audioEndFrames = Math.floor(((i + 1) * audioSamplesPerFragment) / 1024);
    const audioCount = audioEndFrames - audioFrames;
    const audioStart = audioFrames * 1024;
    audioFrames = audioEndFrames;
    times.push({ video: videoStart, audio: audioStart });

    const videoSamples = Array.from({ length: videoPerFragment }, (_, k) =>
      // duration, size, flags, composition offset
      u32(
        videoFrameDuration,
        1500,
        k === 0 ? SAMPLE_DEPENDS_ON_NONE : SAMPLE_DEPENDS_ON_OTHERS | SAMPLE_IS_NON_SYNC,
        videoFrameDuration,
      ),
    );
    const audioSamples = Array.from({ length: audioCount }, () => u32(1024, 200));
    // The trun's data offset (from the moof, default-base-is-moof) points into the mdat that
    // follows the moof: the samples lie inside the media data, as the packager requires.
    const traf = (
      trackId: number,
      start: number,
      trunFlags: number,
      count: number,
      samples: Uint8Array[],
      dataOffset: number,
    ) =>
      box(
        "traf",
        tfhd(trackId), // default-base-is-moof
        ...(withTfdt ? [tfdt(start)] : []),
        fullBox("trun", 0, trunFlags, u32(count, dataOffset), ...samples),
      );
    const videoBytes = videoPerFragment * 1500;
    const videoTraf = (offset: number) =>
      traf(1, videoStart, VIDEO_TRUN, videoPerFragment, videoSamples, offset);
    const audioTraf = (offset: number) =>
      traf(2, audioStart, AUDIO_TRUN, audioCount, audioSamples, offset);
    const moof = (...trafs: Uint8Array[]) =>
      box("moof", fullBox("mfhd", 0, 0, u32(moofs.length + 1)), ...trafs);
    if (o.moofPerTrack) {
      const videoMoof = moof(videoTraf(0)).length;
      moofs.push({ bytes: moof(videoTraf(videoMoof + 8)), fragment: i, tracks: [1] });
      const audioMoof = moof(audioTraf(0)).length;
      moofs.push({ bytes: moof(audioTraf(audioMoof + 8)), fragment: i, tracks: [2] });
    } else {
      const size = moof(videoTraf(0), audioTraf(0)).length;
      moofs.push({
        bytes: moof(videoTraf(size + 8), audioTraf(size + 8 + videoBytes)),
        fragment: i,
        tracks: [1, 2],
      });
    }
  }

  const metadata = o.head.length + moofs.reduce((n, m) => n + m.bytes.length + 8, 0);
  const mdatSize = Math.floor((o.targetSize - metadata) / moofs.length);
  if (mdatSize < 8 || mdatSize >= 2 ** 32)
    throw new Error("target size does not fit 32-bit mdat boxes");

  const parts: Array<Uint8Array | number> = [o.head];
  const moofOffsets: number[] = [];
  let offset = o.head.length;
  for (const moof of moofs) {
    moofOffsets.push(offset);
    parts.push(moof.bytes, concat(u32(mdatSize), ascii("mdat")), mdatSize - 8);
    offset += moof.bytes.length + mdatSize;
  }
  if (o.mfra) {
    const tfra = (trackId: number, time: (fragment: number) => number) => {
      const entries = moofs.flatMap((m, k) =>
        m.tracks.includes(trackId)
          ? [concat(u64(time(m.fragment)), u64(moofOffsets[k]!), new Uint8Array([1, 1, 1]))]
          : [],
      );
      return fullBox("tfra", 1, 0, u32(trackId, 0, entries.length), ...entries); // 1-byte traf/trun/sample numbers
    };
    const body = concat(
      tfra(1, (i) => times[i]!.video + videoFrameDuration), // presentation time of the first (sync) sample
      tfra(2, (i) => times[i]!.audio),
    );
    const mfraSize = 8 + body.length + 16;
    parts.push(concat(u32(mfraSize), ascii("mfra"), body, fullBox("mfro", 0, 0, u32(mfraSize))));
  }

  const { size, segments } = layout(parts);
  const videoEnd = (o.fragments * videoPerFragment * videoFrameDuration) / o.videoTimescale;
  const audioEnd = (audioFrames * 1024) / o.audioTimescale;
  return { size, segments, durationSeconds: Math.max(videoEnd, audioEnd) };
}
