/**
 * CMAF / fragmented MP4 output (ISO/IEC 14496-12, 23000-19): the init segment (ftyp + moov with
 * an mvex, no samples) and media segments (moof + mdat): both tracks (HLS) or one (DASH).
 *
 * Sample timing is the source's: tfdt is each track's decode time, composition offsets are the
 * file's, and the init segment carries each track's edit list (its presentation start), so a
 * video with B-frames and AAC with priming samples start together at 0 as in the source.
 */
import { fromBase64 } from "../../shared/crypto";
import {
  TRUN_DATA_OFFSET,
  TRUN_SAMPLE_CTO,
  TRUN_SAMPLE_DURATION,
  TRUN_SAMPLE_FLAGS,
  TRUN_SAMPLE_SIZE,
} from "../bmff/boxes";
import {
  box,
  concat,
  dinf,
  edts,
  fullBox,
  hdlr,
  mdhd,
  mediaHeader,
  mvhd,
  NON_SYNC_SAMPLE_FLAGS,
  SYNC_SAMPLE_FLAGS,
  tfdt,
  tfhd,
  tkhd,
  trex,
  u32,
} from "../bmff/writer";
import type { SampleRecords, TrackHeader } from "./segments";

const enc = new TextEncoder();

/** The init segment (#EXT-X-MAP): track descriptions and defaults, no samples. */
export function initSegment(tracks: TrackHeader[]): Uint8Array {
  const ftyp = box("ftyp", enc.encode("iso6"), u32(0), enc.encode("iso6cmfcmp41"));
  const movie = mvhd({
    timescale: 1000,
    duration: 0,
    nextTrackId: Math.max(...tracks.map((t) => t.id)) + 1,
  });
  const mvex = box("mvex", ...tracks.map((t) => trex(t.id)));
  return concat([ftyp, box("moov", movie, ...tracks.map(trak), mvex)]);
}

function trak(t: TrackHeader): Uint8Array {
  const handler = t.kind === "video" ? "vide" : "soun";
  const video = t.kind === "video";
  const header = tkhd({
    trackId: t.id,
    duration: 0,
    audio: !video,
    width: video ? t.width : 0,
    height: video ? t.height : 0,
  });
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, u32(1), fromBase64(t.sampleEntry)),
    fullBox("stts", 0, 0, u32(0)),
    fullBox("stsc", 0, 0, u32(0)),
    fullBox("stsz", 0, 0, u32(0, 0)),
    fullBox("stco", 0, 0, u32(0)),
  );
  const mdia = box(
    "mdia",
    mdhd({ timescale: t.timescale, duration: 0 }),
    hdlr(handler),
    box("minf", mediaHeader(handler), dinf(), stbl),
  );
  // The source's presentation start as an edit list (CMAF allows one edit for it): the B-frame
  // delay of a video, the priming samples of AAC (decoded, not presented). segment_duration 0:
  // the duration is in the fragments (ISO/IEC 14496-12, 8.6.6).
  if (t.presentationStart <= 0) return box("trak", header, mdia);
  return box("trak", header, edts({ segmentDuration: 0, mediaTime: t.presentationStart }), mdia);
}

/** One track's samples in a media segment, with their bytes in order. */
export interface TrackRun {
  track: TrackHeader;
  decodeTime: number;
  samples: SampleRecords;
  data: Uint8Array[];
}

/** trun flags: data offset, then per sample its duration, size and flags. */
const TRUN_FLAGS = TRUN_DATA_OFFSET | TRUN_SAMPLE_DURATION | TRUN_SAMPLE_SIZE | TRUN_SAMPLE_FLAGS;

/** A media segment: one moof with a traf per track, then one mdat with the tracks' samples in turn. */
export function mediaSegment(sequence: number, runs: TrackRun[]): Uint8Array {
  const build = (dataOffsets: number[]) =>
    box(
      "moof",
      fullBox("mfhd", 0, 0, u32(sequence)),
      ...runs.map((run, i) => traf(run, dataOffsets[i]!)),
    );
  // The trun data offsets count from the moof's start: its size is known once built (offsets
  // are fixed-width, so a first pass with zeros has the final size).
  const moofSize = build(runs.map(() => 0)).length;
  const offsets: number[] = [];
  let at = moofSize + 8;
  for (const run of runs) {
    offsets.push(at);
    at += run.samples.sizes.reduce((a, b) => a + b, 0);
  }
  // One array, not spread arguments: a segment may hold hundreds of thousands of samples.
  const mdat = box("mdat", concat(runs.flatMap((r) => r.data)));
  return concat([build(offsets), mdat]);
}

/** Bytes of a box header, and of the boxes mediaSegment writes (fixed sizes: ISO/IEC 14496-12). */
const BOX = 8;
const MFHD = BOX + 8;
/** tfhd (track id) + tfdt (version 1) + trun without its samples (count, data offset), in a traf. */
const TRAF = BOX + (BOX + 8) + (BOX + 12) + (BOX + 12);
/** trun bytes per sample: duration, size, flags, and a composition offset (when any is not 0). */
const TRUN_SAMPLE = 12;
const TRUN_CTO = 4;

/**
 * The bytes of the media segment mediaSegment writes for tracks of `count` samples and `bytes`
 * of media each, whose trun holds composition offsets or not.
 */
export function mediaSegmentBytes(
  runs: readonly { count: number; bytes: number; compositionOffsets: boolean }[],
): number {
  let total = BOX + MFHD + BOX;
  for (const run of runs)
    total += TRAF + (TRUN_SAMPLE + (run.compositionOffsets ? TRUN_CTO : 0)) * run.count + run.bytes;
  return total;
}

function traf(run: TrackRun, dataOffset: number): Uint8Array {
  const s = run.samples;
  // Without composition offsets (audio, video without B-frames) a demuxer takes each sample's
  // duration as given: ffmpeg drops the durations of samples that have one.
  const withCto = s.ctos.some((c) => c !== 0);
  const stride = withCto ? 16 : 12;
  const perSample = new Uint8Array(stride * s.sizes.length);
  const view = new DataView(perSample.buffer);
  for (let i = 0, at = 0; i < s.sizes.length; i++, at += stride) {
    view.setUint32(at, s.durations[i]!);
    view.setUint32(at + 4, s.sizes[i]!);
    view.setUint32(at + 8, s.sync[i] ? SYNC_SAMPLE_FLAGS : NON_SYNC_SAMPLE_FLAGS);
    if (withCto) view.setInt32(at + 12, s.ctos[i]!);
  }
  return box(
    "traf",
    tfhd(run.track.id),
    tfdt(run.decodeTime),
    fullBox(
      "trun",
      1,
      TRUN_FLAGS | (withCto ? TRUN_SAMPLE_CTO : 0),
      u32(s.sizes.length, dataOffset),
      perSample,
    ),
  );
}
