/**
 * CMAF / fragmented MP4 output (ISO/IEC 14496-12, 23000-19): the init segment (ftyp + moov with
 * an mvex, no samples) and media segments (moof + mdat): both tracks (HLS) or one (DASH).
 *
 * Sample timing is the source's: tfdt is each track's decode time, composition offsets are the
 * file's, and the init segment carries each track's edit list (its presentation start), so a
 * video with B-frames and AAC with priming samples start together at 0 as in the source.
 */
import { fromBase64 } from "../../shared/crypto";
import { box, concat, fullBox, u16, u32, u64 } from "./box-writer";
import type { SampleRecords, TrackHeader } from "./segments";

const enc = new TextEncoder();

const zeros = (n: number) => new Uint8Array(n);
/** The identity matrix of mvhd and tkhd. */
const MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

/** The init segment (#EXT-X-MAP): track descriptions and defaults, no samples. */
export function initSegment(tracks: TrackHeader[]): Uint8Array {
  const ftyp = box("ftyp", enc.encode("iso6"), u32(0), enc.encode("iso6cmfcmp41"));
  const mvhd = fullBox(
    "mvhd",
    0,
    0,
    u32(0, 0, 1000, 0),
    u32(0x00010000),
    u16(0x0100),
    zeros(10),
    MATRIX,
    zeros(24),
    u32(Math.max(...tracks.map((t) => t.id)) + 1),
  );
  const mvex = box("mvex", ...tracks.map((t) => fullBox("trex", 0, 0, u32(t.id, 1, 0, 0, 0))));
  return concat([ftyp, box("moov", mvhd, ...tracks.map(trak), mvex)]);
}

function trak(t: TrackHeader): Uint8Array {
  const video = t.kind === "video";
  const tkhd = fullBox(
    "tkhd",
    0,
    0x3, // enabled, in movie
    u32(0, 0, t.id, 0, 0),
    zeros(8),
    u16(0, video ? 0 : 1, video ? 0 : 0x0100, 0),
    MATRIX,
    u32(video ? t.width * 65536 : 0, video ? t.height * 65536 : 0),
  );
  const mdhd = fullBox("mdhd", 0, 0, u32(0, 0, t.timescale, 0), u16(0x55c4, 0)); // language "und"
  const hdlr = fullBox(
    "hdlr",
    0,
    0,
    u32(0),
    enc.encode(video ? "vide" : "soun"),
    zeros(12),
    enc.encode(video ? "VideoHandler\0" : "SoundHandler\0"),
  );
  const header = video ? fullBox("vmhd", 0, 1, zeros(8)) : fullBox("smhd", 0, 0, zeros(4));
  const dinf = box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1)));
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, u32(1), fromBase64(t.sampleEntry)),
    fullBox("stts", 0, 0, u32(0)),
    fullBox("stsc", 0, 0, u32(0)),
    fullBox("stsz", 0, 0, u32(0, 0)),
    fullBox("stco", 0, 0, u32(0)),
  );
  const mdia = box("mdia", mdhd, hdlr, box("minf", header, dinf, stbl));
  const edts = editList(t);
  return edts ? box("trak", tkhd, edts, mdia) : box("trak", tkhd, mdia);
}

/**
 * The source's presentation start as an edit list (CMAF allows one edit for it): the B-frame
 * delay of a video, the priming samples of AAC (decoded, not presented). segment_duration 0:
 * the duration is in the fragments (ISO/IEC 14496-12, 8.6.6).
 */
function editList(t: TrackHeader): Uint8Array | null {
  if (t.presentationStart <= 0) return null;
  const wide = t.presentationStart > 0x7fffffff;
  const entry = wide
    ? concat([u64(0), u64(t.presentationStart), u16(1, 0)])
    : concat([u32(0, t.presentationStart), u16(1, 0)]);
  return box("edts", fullBox("elst", wide ? 1 : 0, 0, u32(1), entry));
}

/** One track's samples in a media segment, with their bytes in order. */
export interface TrackRun {
  track: TrackHeader;
  decodeTime: number;
  samples: SampleRecords;
  data: Uint8Array[];
}

/** trun flags: data offset, then per sample its duration, size and flags. */
const TRUN_FLAGS = 0x000001 | 0x000100 | 0x000200 | 0x000400;
/** Per sample composition time offsets (written only when a run has one that is not 0). */
const TRUN_CTO = 0x000800;
/** sample_depends_on = 2 (an I-frame) / 1 with sample_is_non_sync_sample. */
const SYNC_FLAGS = 0x02000000;
const NON_SYNC_FLAGS = 0x01010000;

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
    view.setUint32(at + 8, s.sync[i] ? SYNC_FLAGS : NON_SYNC_FLAGS);
    if (withCto) view.setInt32(at + 12, s.ctos[i]!);
  }
  return box(
    "traf",
    fullBox("tfhd", 0, 0x020000, u32(run.track.id)), // default-base-is-moof
    fullBox("tfdt", 1, 0, u64(run.decodeTime)),
    fullBox(
      "trun",
      1,
      TRUN_FLAGS | (withCto ? TRUN_CTO : 0),
      u32(s.sizes.length, dataOffset),
      perSample,
    ),
  );
}
