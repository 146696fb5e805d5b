/**
 * The HLS index of a stored file: where each segment starts and ends, and a compact table of
 * every sample's bytes, duration and offsets, so that a playlist or a segment never has to read
 * the file's (possibly megabytes of) metadata again.
 *
 * Two stored objects per file version:
 *  - the index (JSON, a few hundred bytes per minute of video): tracks, codecs, and per segment
 *    its duration, the decode time of its first sample per track, and where its sample records
 *    are in the sample table;
 *  - the sample table (binary, 24 bytes per sample, segment after segment): a segment reads its
 *    own records with one ranged read.
 *
 * Segments are cut at video keyframes once at least the target duration has passed (the first
 * once FIRST_SEGMENT_SECONDS have: a short first segment is what a player on a slow link waits
 * for before its first frame); each holds the audio samples that start before the next
 * segment's first video sample.
 */
import { base64 } from "../../shared/crypto";
import { type MediaTracks, PackagingBudgetExceeded, type Track, type TrackKind } from "./tracks";

export const INDEX_FORMAT = 1;
/**
 * The index's budget beside the samples' (tracks.ts): at most this many segments (33 hours of
 * 6 s segments; each costs about 150 bytes of the stored index), and a segment is read whole
 * into memory to be packaged, so at most this many media bytes in one.
 */
export const MAX_SEGMENTS = 20_000;
export const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;
/**
 * The first segment ends at the first keyframe this long after the start (or the target, if
 * shorter): at 1.5 Mbit/s a 2 s segment of the start variant loads in about a second, a 6 s one
 * in three (docs/benchmarks.md, "First frame on a slow link").
 */
export const FIRST_SEGMENT_SECONDS = 2;
const RECORD_BYTES = 24;
const FLAG_SYNC = 1;

/** One track's part of a segment: how many samples and the decode time of the first. */
export interface SegmentTrackRun {
  count: number;
  decodeTime: number;
}

export interface SegmentEntry {
  /** Duration in seconds (video decode time to the next segment). */
  duration: number;
  /** Byte offset of the segment's records in the sample table. */
  recordsAt: number;
  video: SegmentTrackRun;
  audio: SegmentTrackRun | null;
  /** Media bytes (the mdat payload), both tracks. */
  bytes: number;
  /**
   * The video's share of `bytes` (the rest is the audio's): each DASH Representation's bandwidth
   * is its own track's. Indexes stored before it was kept get it from their sample table once
   * (domain/streaming/indexes.ts).
   */
  videoBytes: number;
}

/**
 * A track as the index keeps it: everything but the samples; the sample entry as base64; whether
 * any sample has a composition offset (what a segment's trun holds per sample: the served size;
 * absent in indexes stored before, and taken as true there).
 */
export type TrackHeader = Omit<Track, "samples" | "sampleEntry"> & {
  sampleEntry: string;
  compositionOffsets?: boolean;
};

export interface HlsIndex {
  format: typeof INDEX_FORMAT;
  targetSeconds: number;
  durationSeconds: number;
  video: TrackHeader;
  audio: TrackHeader | null;
  segments: SegmentEntry[];
}

/** A segment's samples read back from the sample table. */
export interface SampleRecords {
  offsets: number[];
  sizes: number[];
  durations: number[];
  ctos: number[];
  sync: boolean[];
}

export interface BuiltIndex {
  index: HlsIndex;
  sampleTable: Uint8Array;
}

/**
 * Cuts the tracks into segments of about `targetSeconds` and writes the index and the sample
 * table. `givenStarts`: the video samples (keyframes, ascending, from 0) where segments start,
 * instead of the rule below (a rendition, cut where its source was: media/renditions).
 */
export function buildIndex(
  tracks: MediaTracks,
  targetSeconds: number,
  givenStarts?: readonly number[],
): BuiltIndex {
  const { video, audio } = tracks;
  const v = video.samples;
  if (v.sizes.length === 0) throw new Error("the video track has no samples");
  const videoDts = decodeTimes(v.durations);
  const audioDts = audio ? decodeTimes(audio.samples.durations) : [];

  // Video sample indexes where segments start: the first sample, then the first keyframe at
  // least targetSeconds (the first segment: FIRST_SEGMENT_SECONDS) after the current segment's start.
  const starts = givenStarts ? [...givenStarts] : [0];
  const target = targetSeconds * video.timescale;
  const firstTarget = Math.min(FIRST_SEGMENT_SECONDS, targetSeconds) * video.timescale;
  for (let i = 1; !givenStarts && i < v.sizes.length; i++) {
    const since = videoDts[i]! - videoDts[starts[starts.length - 1]!]!;
    if (v.sync[i] && since >= (starts.length === 1 ? firstTarget : target)) starts.push(i);
  }
  if (starts[0] !== 0 || starts.some((s, k) => !v.sync[s] || (k > 0 && s <= starts[k - 1]!)))
    throw new Error("segments must start at ascending keyframes, the first at sample 0");
  if (starts.length > MAX_SEGMENTS)
    throw new PackagingBudgetExceeded(
      `the file would make ${starts.length} segments, more than ${MAX_SEGMENTS}`,
    );
  const videoEnd = videoDts[v.sizes.length]!;

  const segments: SegmentEntry[] = [];
  const records: { track: Track; from: number; to: number }[] = [];
  let audioNext = 0;
  let recordsAt = 0;
  for (const [k, first] of starts.entries()) {
    const last = starts[k + 1] ?? v.sizes.length;
    const endSeconds = starts[k + 1] === undefined ? Infinity : videoDts[last]! / video.timescale;
    let audioRun: SegmentTrackRun | null = null;
    let audioTo = audioNext;
    if (audio) {
      while (
        audioTo < audio.samples.sizes.length &&
        audioDts[audioTo]! / audio.timescale < endSeconds
      )
        audioTo++;
      audioRun = { count: audioTo - audioNext, decodeTime: audioDts[audioNext]! };
    }
    const videoBytes = sum(v.sizes, first, last);
    const bytes = videoBytes + (audio ? sum(audio.samples.sizes, audioNext, audioTo) : 0);
    if (bytes > MAX_SEGMENT_BYTES)
      throw new PackagingBudgetExceeded(
        `segment ${k} would hold ${bytes} bytes, more than ${MAX_SEGMENT_BYTES}`,
      );
    segments.push({
      duration: (videoDts[last]! - videoDts[first]!) / video.timescale,
      recordsAt,
      video: { count: last - first, decodeTime: videoDts[first]! },
      audio: audioRun,
      bytes,
      videoBytes,
    });
    records.push({ track: video, from: first, to: last });
    if (audio) records.push({ track: audio, from: audioNext, to: audioTo });
    recordsAt += (last - first + (audioTo - audioNext)) * RECORD_BYTES;
    audioNext = audioTo;
  }

  const sampleTable = new Uint8Array(recordsAt);
  const view = new DataView(sampleTable.buffer);
  let at = 0;
  for (const { track, from, to } of records) {
    const s = track.samples;
    for (let i = from; i < to; i++, at += RECORD_BYTES) {
      view.setFloat64(at, s.offsets[i]!);
      view.setUint32(at + 8, s.sizes[i]!);
      view.setUint32(at + 12, s.durations[i]!);
      view.setInt32(at + 16, s.ctos[i]!);
      view.setUint32(at + 20, s.sync[i] ? FLAG_SYNC : 0);
    }
  }
  const index: HlsIndex = {
    format: INDEX_FORMAT,
    targetSeconds,
    durationSeconds: videoEnd / video.timescale,
    video: header(video),
    audio: audio ? header(audio) : null,
    segments,
  };
  return { index, sampleTable };
}

/** Where a segment's records are in the sample table: [offset, offset + length). */
export function recordRange(segment: SegmentEntry): { offset: number; length: number } {
  return {
    offset: segment.recordsAt,
    length: (segment.video.count + (segment.audio?.count ?? 0)) * RECORD_BYTES,
  };
}

/** Which samples of a segment: both tracks (HLS's muxed segments) or one (DASH's per track). */
export type SegmentPart = "muxed" | TrackKind;

/** Where a segment's records of `part` are in the sample table (video's come before audio's). */
export function partRange(
  segment: SegmentEntry,
  part: SegmentPart,
): { offset: number; length: number } {
  if (part === "muxed") return recordRange(segment);
  const video = segment.video.count * RECORD_BYTES;
  return part === "video"
    ? { offset: segment.recordsAt, length: video }
    : { offset: segment.recordsAt + video, length: (segment.audio?.count ?? 0) * RECORD_BYTES };
}

/** A segment's records of `part`, as read from the sample table at `partRange`. */
export function readPartRecords(
  bytes: Uint8Array,
  segment: SegmentEntry,
  part: SegmentPart,
): { video: SampleRecords | null; audio: SampleRecords | null } {
  if (part === "muxed") return readRecords(bytes, segment);
  if (bytes.length !== partRange(segment, part).length)
    throw new Error("sample table read does not match the index");
  const records = takeRecords(bytes, 0, bytes.length / RECORD_BYTES);
  return part === "video" ? { video: records, audio: null } : { video: null, audio: records };
}

function takeRecords(bytes: Uint8Array, from: number, count: number): SampleRecords {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r: SampleRecords = { offsets: [], sizes: [], durations: [], ctos: [], sync: [] };
  for (let i = 0, at = from * RECORD_BYTES; i < count; i++, at += RECORD_BYTES) {
    r.offsets.push(view.getFloat64(at));
    r.sizes.push(view.getUint32(at + 8));
    r.durations.push(view.getUint32(at + 12));
    r.ctos.push(view.getInt32(at + 16));
    r.sync.push((view.getUint32(at + 20) & FLAG_SYNC) !== 0);
  }
  return r;
}

/** Splits a segment's records (as read from the sample table) into its video and audio samples. */
export function readRecords(
  bytes: Uint8Array,
  segment: SegmentEntry,
): { video: SampleRecords; audio: SampleRecords | null } {
  if (bytes.length !== recordRange(segment).length)
    throw new Error("sample table read does not match the index");
  return {
    video: takeRecords(bytes, 0, segment.video.count),
    audio: segment.audio ? takeRecords(bytes, segment.video.count, segment.audio.count) : null,
  };
}

/**
 * Each segment's video bytes, from the sample table (`table`: the whole of it): for an index
 * stored before SegmentEntry kept them.
 */
export function withVideoBytes<T extends HlsIndex>(index: T, table: Uint8Array): T {
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const segments = index.segments.map((s) => {
    if (s.recordsAt + s.video.count * RECORD_BYTES > table.length)
      throw new Error("sample table read does not match the index");
    let videoBytes = 0;
    for (let i = 0, at = s.recordsAt; i < s.video.count; i++, at += RECORD_BYTES)
      videoBytes += view.getUint32(at + 8);
    return { ...s, videoBytes };
  });
  return { ...index, segments };
}

/** Whether every segment of a stored index knows its video bytes. */
export const hasVideoBytes = (index: HlsIndex) =>
  index.segments.every((s) => typeof s.videoBytes === "number");

function header(track: Track): TrackHeader {
  const { samples, sampleEntry, ...rest } = track;
  return {
    ...rest,
    sampleEntry: base64(sampleEntry),
    compositionOffsets: samples.ctos.some((c) => c !== 0),
  };
}

function decodeTimes(durations: number[]): number[] {
  const out = new Array<number>(durations.length + 1);
  out[0] = 0;
  for (let i = 0; i < durations.length; i++) out[i + 1] = out[i]! + durations[i]!;
  return out;
}

function sum(values: number[], from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += values[i]!;
  return total;
}
