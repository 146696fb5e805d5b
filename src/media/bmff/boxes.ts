/**
 * One parse function per ISO BMFF box the service reads (ISO/IEC 14496-12; esds: 14496-1), and
 * the flag bits of those boxes, named once. The probe, the fragment walk, the head scan and the
 * HLS packager all read boxes through here; what they do with the fields (and which limits they
 * apply) stays with them.
 *
 * Every function takes the buffer and the box (its payload bounds, from `children`) and reads
 * through a BoxCursor: a field outside the box ends in a MediaProbeError naming it. Counts
 * read from a box are checked against the bytes the box holds before any array is made.
 */
import {
  type Box,
  BoxCursor,
  type Bytes,
  children,
  corrupt,
  descend,
  MediaProbeError,
} from "./reader";

// ---------------------------------------------------------------------------
// Flags.
// ---------------------------------------------------------------------------

/** tfhd flags (8.8.7). */
export const TFHD_BASE_DATA_OFFSET = 0x000001;
export const TFHD_SAMPLE_DESCRIPTION_INDEX = 0x000002;
export const TFHD_DEFAULT_SAMPLE_DURATION = 0x000008;
export const TFHD_DEFAULT_SAMPLE_SIZE = 0x000010;
export const TFHD_DEFAULT_SAMPLE_FLAGS = 0x000020;
export const TFHD_DURATION_IS_EMPTY = 0x010000;
export const TFHD_DEFAULT_BASE_IS_MOOF = 0x020000;
/** trun flags (8.8.8). */
export const TRUN_DATA_OFFSET = 0x000001;
export const TRUN_FIRST_SAMPLE_FLAGS = 0x000004;
export const TRUN_SAMPLE_DURATION = 0x000100;
export const TRUN_SAMPLE_SIZE = 0x000200;
export const TRUN_SAMPLE_FLAGS = 0x000400;
export const TRUN_SAMPLE_CTO = 0x000800;
/** tkhd flags (8.3.2). */
export const TKHD_ENABLED = 0x000001;
export const TKHD_IN_MOVIE = 0x000002;
/** Sample flags (8.8.3.1): sample_depends_on 1 (not an I-frame) / 2 (an I-frame). */
export const SAMPLE_DEPENDS_ON_OTHERS = 0x01000000;
export const SAMPLE_DEPENDS_ON_NONE = 0x02000000;
/** sample_is_non_sync_sample in the sample flags. */
export const SAMPLE_IS_NON_SYNC = 0x00010000;

// ---------------------------------------------------------------------------
// Movie and track headers.
// ---------------------------------------------------------------------------

export interface Timescaled {
  timescale: number;
  /** null for the "unknown" marker. */
  duration: number | null;
}

/** mvhd and mdhd share the layout up to the duration (8.2.2, 8.4.2). */
function parseTimescaled(b: Bytes, box: Box): Timescaled {
  const c = new BoxCursor(b, box);
  const { version } = c.fullBoxHeader();
  if (version === 1) {
    c.skip(16); // creation_time, modification_time
    return { timescale: c.u32(), duration: c.u64() };
  }
  if (version === 0) {
    c.skip(8);
    const timescale = c.u32();
    const duration = c.u32();
    return { timescale, duration: duration === 0xffffffff ? null : duration };
  }
  throw new MediaProbeError(`corrupt MP4/MOV file: unsupported ${box.type} version ${version}`);
}

export const parseMvhd = parseTimescaled;
export const parseMdhd = parseTimescaled;

export interface Tkhd {
  trackId: number;
  /** The presentation size (16.16 fixed point in the box, integer part here). */
  width: number;
  height: number;
}

/** tkhd (8.3.2): the track's id and presentation size. */
export function parseTkhd(b: Bytes, box: Box): Tkhd {
  const c = new BoxCursor(b, box);
  const { version } = c.fullBoxHeader();
  c.skip(version === 1 ? 16 : 8); // creation_time, modification_time
  const trackId = c.u32();
  // reserved, duration, reserved(8), layer, alternate_group, volume, reserved, matrix(36)
  c.skip((version === 1 ? 8 : 4) + 4 + 8 + 8 + 36);
  return { trackId, width: c.u32() >>> 16, height: c.u32() >>> 16 };
}

/** The track id of a tkhd, without its presentation size. */
export function tkhdTrackId(b: Bytes, box: Box): number {
  const c = new BoxCursor(b, box);
  const { version } = c.fullBoxHeader();
  return c.skip(version === 1 ? 16 : 8).u32();
}

/** hdlr (8.4.3): the handler type, e.g. "vide", "soun". */
export function parseHdlr(b: Bytes, box: Box): string {
  return new BoxCursor(b, box).skip(8).fourcc(); // version/flags, pre_defined
}

/** elst (8.6.6): the first non-empty edit's media_time (where presentation starts), else 0. */
export function parseElst(b: Bytes, box: Box): number {
  const c = new BoxCursor(b, box);
  const { version } = c.fullBoxHeader();
  const count = c.u32();
  for (let i = 0; i < count; i++) {
    c.skip(version === 1 ? 8 : 4); // segment_duration
    const mediaTime = c.uVersioned(version);
    // -1 (all ones) marks an empty edit; u64 of all ones is rejected by readUint64 as out of range.
    if (version === 0 && mediaTime === 0xffffffff) {
      c.at += 4; // media_rate
      continue;
    }
    return mediaTime;
  }
  return 0;
}

/** The boxes of a trak that the readers look at (children listed once, in file order). */
export interface TrakBoxes {
  /** The trak's children (edts, …). */
  kids: Box[];
  tkhd: Box | undefined;
  mdia: Box | undefined;
  mdhd: Box | undefined;
  /** The mdia-level hdlr (QuickTime's second one, in minf, names the data reference). */
  hdlr: Box | undefined;
  stbl: Box | null;
  /** The sample tables: stbl's children. */
  tables: Box[];
}

/** Lists the boxes of a trak down to its sample tables (trak → mdia → minf → stbl). */
export function trakBoxes(b: Bytes, trak: Box): TrakBoxes {
  const kids = children(b, trak.start, trak.end);
  const tkhd = kids.find((x) => x.type === "tkhd");
  const mdia = kids.find((x) => x.type === "mdia");
  const mdiaKids = mdia ? children(b, mdia.start, mdia.end) : [];
  const stbl = descend(b, mdiaKids, ["minf", "stbl"]);
  return {
    kids,
    tkhd,
    mdia,
    mdhd: mdiaKids.find((x) => x.type === "mdhd"),
    hdlr: mdiaKids.find((x) => x.type === "hdlr"),
    stbl,
    tables: stbl ? children(b, stbl.start, stbl.end) : [],
  };
}

// ---------------------------------------------------------------------------
// Sample descriptions.
// ---------------------------------------------------------------------------

/** stsd (8.5.2): the first sample entry (a box), or null when there is none. */
export function parseStsd(b: Bytes, stsd: Box): Box | null {
  const c = new BoxCursor(b, stsd).skip(4);
  if (c.u32() === 0) return null;
  return children(b, c.at, stsd.end, 1)[0] ?? null;
}

/** A visual sample entry's fixed fields, before its boxes (avcC, pasp…). */
export const VISUAL_SAMPLE_ENTRY_BYTES = 78;

/** A visual sample entry's coded size (12.1.3). */
export function parseVisualSampleEntry(b: Bytes, entry: Box): { width: number; height: number } {
  // reserved(6) data_reference_index(2) pre_defined(2) reserved(2) pre_defined(12) width(2) height(2)
  const c = new BoxCursor(b, entry).skip(24);
  return { width: c.u16(), height: c.u16() };
}

/** The coded size, or null when the entry is too short to hold it or says 0x0. */
export function visualEntrySize(b: Bytes, entry: Box): { width: number; height: number } | null {
  if (entry.end - entry.start < 28) return null;
  const size = parseVisualSampleEntry(b, entry);
  return size.width > 0 && size.height > 0 ? size : null;
}

/** The avcC of an avc1/avc3 entry: its profile, compatibility and level (14496-15, 5.3.3.1). */
export function parseAvcC(
  b: Bytes,
  entry: Box,
): { profile: number; compat: number; level: number } | null {
  const avcC = children(b, entry.start + VISUAL_SAMPLE_ENTRY_BYTES, entry.end).find(
    (x) => x.type === "avcC",
  );
  if (!avcC) return null;
  const c = new BoxCursor(b, avcC).skip(1); // configurationVersion
  return { profile: c.u8(), compat: c.u8(), level: c.u8() };
}

/** An audio sample entry's channel count (12.2.3). */
export function audioEntryChannels(b: Bytes, entry: Box): number {
  return new BoxCursor(b, entry).skip(16).u16();
}

/** The codec string of an audio sample entry: "mp4a.40.2" style for mp4a, else its fourcc. */
export function audioCodecString(b: Bytes, entry: Box): string {
  if (entry.type !== "mp4a") return entry.type;
  const esds = findEsds(b, entry);
  if (!esds) return "mp4a";
  const es = parseEsds(b, esds);
  if (es.objectType === null) return "mp4a";
  const oti = es.objectType.toString(16).toUpperCase().padStart(2, "0");
  // RFC 6381: the audio object type is only appended for MPEG-4 Audio (0x40).
  if (es.objectType === 0x40 && es.audioObjectType !== null)
    return `mp4a.${oti}.${es.audioObjectType}`;
  return `mp4a.${oti}`;
}

/**
 * Finds the esds box in an mp4a entry. The child boxes start after the audio
 * fields, whose length depends on the sound description version: QuickTime v1
 * adds 16 bytes and v2 adds 36, but an ISO MP4 "version 1" entry adds nothing,
 * so both layouts are tried. MOV files may also wrap esds in a 'wave' box.
 */
export function findEsds(b: Bytes, entry: Box): Box | null {
  // reserved(6) data_reference_index(2) version(2) revision(2) vendor(4)
  // channels(2) sample_size(2) compression_id(2) packet_size(2) sample_rate(4) = 28 bytes
  const version = new BoxCursor(b, entry).skip(8).u16();
  const extra = version === 1 ? 16 : version === 2 ? 36 : 0;
  const candidates = extra > 0 ? [28 + extra, 28] : [28];
  for (const skip of candidates) {
    const childStart = entry.start + skip;
    if (childStart > entry.end) continue;
    try {
      const kids = children(b, childStart, entry.end);
      const direct = kids.find((x) => x.type === "esds");
      if (direct) return direct;
      const wave = kids.find((x) => x.type === "wave");
      if (wave) {
        const inWave = children(b, wave.start, wave.end).find((x) => x.type === "esds");
        if (inWave) return inWave;
      }
    } catch (err) {
      // Wrong layout guess: the bytes did not parse as boxes; try the next one.
      if (!(err instanceof MediaProbeError)) throw err;
    }
  }
  return null;
}

export interface EsInfo {
  objectType: number | null;
  audioObjectType: number | null;
}

/** esds: FullBox header, then an ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4) → DecoderSpecificInfo (tag 5). */
export function parseEsds(b: Bytes, esds: Box): EsInfo {
  const result: EsInfo = { objectType: null, audioObjectType: null };
  const es = readDescriptor(b, esds.start + 4, esds.end);
  if (!es || es.tag !== 0x03) return result;

  const c = new BoxCursor(b, esds, es.start + 2); // ES_ID
  const flags = c.u8();
  if (flags & 0x80) c.at += 2; // dependsOn_ES_ID
  if (flags & 0x40) c.at += 1 + b.u8(c.at, esds); // URL string
  if (flags & 0x20) c.at += 2; // OCR_ES_Id

  // Sub-descriptors of the ES_Descriptor; we want DecoderConfigDescriptor.
  const dc = findDescriptor(b, c.at, es.end, 0x04);
  if (!dc || dc.end - dc.start < 13) return result;
  result.objectType = b.u8(dc.start, esds);

  // objectTypeIndication(1) streamType(1) bufferSizeDB(3) maxBitrate(4) avgBitrate(4) = 13 bytes
  const dsi = findDescriptor(b, dc.start + 13, dc.end, 0x05);
  if (dsi && dsi.end - dsi.start >= 1) {
    // AudioSpecificConfig: 5-bit audioObjectType; 31 means "escape, 32 + next 6 bits".
    let aot = b.u8(dsi.start, esds) >>> 3;
    if (aot === 31 && dsi.end - dsi.start >= 2) {
      const bits = (b.u8(dsi.start, esds) << 8) | b.u8(dsi.start + 1, esds);
      aot = 32 + ((bits >>> 5) & 0x3f);
    }
    result.audioObjectType = aot;
  }
  return result;
}

interface Descriptor {
  tag: number;
  start: number;
  end: number;
}

/** MPEG-4 descriptor: tag byte, then a size of 1-4 bytes with 7 bits each (high bit = more). */
function readDescriptor(b: Bytes, offset: number, limit: number): Descriptor | null {
  if (offset >= limit) return null;
  const c = new BoxCursor(b, { type: "esds", start: offset, end: limit });
  const tag = c.u8();
  let size = 0;
  for (let i = 0; i < 4; i++) {
    const byte = c.u8();
    size = size * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  // Some muxers write slightly wrong sizes; clamp to the parent instead of failing.
  return { tag, start: c.at, end: Math.min(c.at + size, limit) };
}

function findDescriptor(b: Bytes, offset: number, limit: number, tag: number): Descriptor | null {
  let p = offset;
  while (p < limit) {
    const d = readDescriptor(b, p, limit);
    if (!d) return null;
    if (d.tag === tag) return d;
    p = d.end; // always advances: the header is at least 2 bytes
  }
  return null;
}

// ---------------------------------------------------------------------------
// Sample tables of a progressive file (8.6, 8.7).
// ---------------------------------------------------------------------------

/**
 * Called with a sample table's count before its array is made: the caller's limits (the file's
 * size, the index's budget). `fixed` is the one size stsz gives every sample, else 0.
 */
export type AdmitSamples = (count: number, fixed: number, table: string) => void;

/** stsz (8.7.3.2): each sample's size. */
export function parseStsz(b: Bytes, stsz: Box, admit: AdmitSamples): number[] {
  const c = new BoxCursor(b, stsz).skip(4);
  const fixed = c.u32();
  const count = c.u32();
  if (fixed !== 0) {
    admit(count, fixed, "stsz");
    return new Array<number>(count).fill(fixed);
  }
  if (count * 4 > c.remaining) throw corrupt("stsz");
  admit(count, 0, "stsz");
  const sizes = new Array<number>(count);
  for (let i = 0; i < count; i++) sizes[i] = c.u32();
  return sizes;
}

/** stz2 (8.7.3.3): each sample's size in 4, 8 or 16 bits. */
export function parseStz2(b: Bytes, stz2: Box, admit: AdmitSamples): number[] {
  const c = new BoxCursor(b, stz2).skip(7);
  const field = c.u8();
  const count = c.u32();
  if (![4, 8, 16].includes(field) || (count * field) / 8 > c.remaining) throw corrupt("stz2");
  admit(count, 0, "stz2");
  const sizes = new Array<number>(count);
  const at = c.at;
  for (let i = 0; i < count; i++) {
    if (field === 16) sizes[i] = b.u16(at + 2 * i, stz2);
    else if (field === 8) sizes[i] = b.u8(at + i, stz2);
    else sizes[i] = (b.u8(at + (i >> 1), stz2) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
  }
  return sizes;
}

/** stts and ctts: (count, value) runs expanded to one value per sample. */
function expandRuns(b: Bytes, box: Box, count: number, signed: boolean): number[] {
  const c = new BoxCursor(b, box).skip(4);
  const entries = c.u32();
  if (entries * 8 > c.remaining) throw corrupt(box.type);
  const out = new Array<number>(count);
  let i = 0;
  for (let e = 0; e < entries && i < count; e++) {
    const run = c.u32();
    const value = signed ? c.i32() : c.u32();
    for (let k = 0; k < run && i < count; k++) out[i++] = value;
  }
  // Tables shorter than the sample count repeat their last value (a lenient reading of odd muxers).
  const last = i > 0 ? out[i - 1]! : 0;
  while (i < count) out[i++] = last;
  return out;
}

/** stts (8.6.1.2): the duration of each of `count` samples. */
export function parseStts(b: Bytes, stts: Box, count: number): number[] {
  return expandRuns(b, stts, count, false);
}

/** ctts (8.6.1.3): the composition offset of each of `count` samples (read as signed). */
export function parseCtts(b: Bytes, ctts: Box, count: number): number[] {
  return expandRuns(b, ctts, count, true);
}

/** stss (8.6.2): which of `count` samples are sync samples (numbers outside 1..count are ignored). */
export function parseStss(b: Bytes, stss: Box, count: number): boolean[] {
  const sync = new Array<boolean>(count).fill(false);
  const c = new BoxCursor(b, stss).skip(4);
  const entries = c.u32();
  if (entries * 4 > c.remaining) throw corrupt("stss");
  for (let e = 0; e < entries; e++) {
    const n = c.u32();
    if (n >= 1 && n <= count) sync[n - 1] = true;
  }
  return sync;
}

/** stsc (8.7.4) runs, read on demand: a run starts at `firstChunk` with `perChunk` samples. */
export interface Stsc {
  runs: number;
  firstChunk(run: number): number;
  perChunk(run: number): number;
}

export function parseStsc(b: Bytes, stsc: Box): Stsc {
  const c = new BoxCursor(b, stsc).skip(4);
  const runs = c.u32();
  if (runs * 12 > c.remaining) throw corrupt("stsc");
  const first = c.at;
  return {
    runs,
    firstChunk: (run) => b.u32(first + 12 * run, stsc),
    perChunk: (run) => b.u32(first + 12 * run + 4, stsc),
  };
}

/** stco / co64 (8.7.5) chunk offsets, read on demand (a table may list millions). */
export interface ChunkOffsets {
  count: number;
  /** File offset of chunk `chunk` (1-based). */
  offset(chunk: number): number;
}

export function parseStco(b: Bytes, box: Box): ChunkOffsets {
  const wide = box.type === "co64";
  const c = new BoxCursor(b, box).skip(4);
  const count = c.u32();
  if (count * (wide ? 8 : 4) > c.remaining) throw corrupt(box.type);
  const first = c.at;
  return {
    count,
    offset: wide
      ? (chunk) => b.u64(first + (chunk - 1) * 8, box)
      : (chunk) => b.u32(first + (chunk - 1) * 4, box),
  };
}

// ---------------------------------------------------------------------------
// Movie fragments (8.8).
// ---------------------------------------------------------------------------

/** mehd (8.8.2): the whole duration of a fragmented movie, or null when it says 0. */
export function parseMehd(b: Bytes, box: Box): number | null {
  const c = new BoxCursor(b, box);
  const { version } = c.fullBoxHeader();
  const duration = c.uVersioned(version);
  return duration > 0 ? duration : null;
}

export interface Trex {
  trackId: number;
  defaultSampleDuration: number;
  defaultSampleSize: number;
  defaultSampleFlags: number;
}

/** trex (8.8.3): a track's defaults for the samples of its fragments. */
export function parseTrex(b: Bytes, box: Box): Trex {
  const c = new BoxCursor(b, box).skip(4);
  const trackId = c.u32();
  c.skip(4); // default_sample_description_index
  return {
    trackId,
    defaultSampleDuration: c.u32(),
    defaultSampleSize: c.u32(),
    defaultSampleFlags: c.u32(),
  };
}

export interface Tfhd {
  flags: number;
  trackId: number;
  /** null: the data offsets count from the moof (or the previous traf's data). */
  baseDataOffset: number | null;
  /** null: the trex default applies. */
  defaultSampleDuration: number | null;
  defaultSampleSize: number | null;
  defaultSampleFlags: number | null;
}

/** tfhd (8.8.7): the track of a traf and its defaults. */
export function parseTfhd(b: Bytes, box: Box): Tfhd {
  const c = new BoxCursor(b, box);
  const { flags } = c.fullBoxHeader();
  const trackId = c.u32();
  const baseDataOffset = flags & TFHD_BASE_DATA_OFFSET ? c.u64() : null;
  if (flags & TFHD_SAMPLE_DESCRIPTION_INDEX) c.skip(4);
  const defaultSampleDuration = flags & TFHD_DEFAULT_SAMPLE_DURATION ? c.u32() : null;
  const defaultSampleSize = flags & TFHD_DEFAULT_SAMPLE_SIZE ? c.u32() : null;
  const defaultSampleFlags = flags & TFHD_DEFAULT_SAMPLE_FLAGS ? c.u32() : null;
  return {
    flags,
    trackId,
    baseDataOffset,
    defaultSampleDuration,
    defaultSampleSize,
    defaultSampleFlags,
  };
}

/** tfdt (8.8.12): baseMediaDecodeTime. */
export function parseTfdt(b: Bytes, box: Box): number {
  const c = new BoxCursor(b, box);
  return c.uVersioned(c.fullBoxHeader().version);
}

/** A trun's header; its samples are read one by one with readTrunSample. */
export interface Trun {
  version: number;
  flags: number;
  sampleCount: number;
  /** Signed, relative to the base data offset; null: continues where the previous run ended. */
  dataOffset: number | null;
  firstSampleFlags: number | null;
  /** At the first sample; each holds `sampleCount * stride` bytes, all inside the box. */
  samples: BoxCursor;
}

/**
 * trun (8.8.8). The sample count is checked against the box's bytes here, before the caller
 * makes any array or loop of that size.
 */
export function parseTrun(b: Bytes, box: Box): Trun {
  const c = new BoxCursor(b, box);
  const { version, flags } = c.fullBoxHeader();
  const sampleCount = c.u32();
  const dataOffset = flags & TRUN_DATA_OFFSET ? c.i32() : null;
  const firstSampleFlags = flags & TRUN_FIRST_SAMPLE_FLAGS ? c.u32() : null;
  const fields = [TRUN_SAMPLE_DURATION, TRUN_SAMPLE_SIZE, TRUN_SAMPLE_FLAGS, TRUN_SAMPLE_CTO];
  const stride = 4 * fields.filter((f) => flags & f).length;
  if (sampleCount * stride > c.remaining) throw corrupt("trun");
  return { version, flags, sampleCount, dataOffset, firstSampleFlags, samples: c };
}

/** One sample of a trun: the fields it does not carry keep the value they had (the defaults). */
export interface TrunSample {
  duration: number;
  size: number;
  flags: number;
  /** Composition offset: signed in a version 1 trun, as written in version 0. */
  cto: number;
}

/** Reads the next sample of `trun` into `sample`. */
export function readTrunSample(trun: Trun, sample: TrunSample): void {
  const c = trun.samples;
  const flags = trun.flags;
  if (flags & TRUN_SAMPLE_DURATION) sample.duration = c.u32();
  if (flags & TRUN_SAMPLE_SIZE) sample.size = c.u32();
  if (flags & TRUN_SAMPLE_FLAGS) sample.flags = c.u32();
  if (flags & TRUN_SAMPLE_CTO) sample.cto = trun.version === 1 ? c.i32() : c.u32();
}

/** The mfra's size from an mfro box (the file's last 16 bytes), or null if they are not an mfro. */
export function parseMfro(b: Bytes): number | null {
  if (b.length !== 16) return null;
  const c = new BoxCursor(b, { type: "mfro", start: 0, end: 16 });
  if (c.u32() !== 16 || c.fourcc() !== "mfro") return null;
  return c.skip(4).u32();
}

/** The last entry of one tfra box: the track's last random-access sample. */
export interface TfraEntry {
  trackId: number;
  /** Presentation time of the sample, in track timescale units. */
  time: number;
  /** File offset of the moof that holds it. */
  moofOffset: number;
  trafNumber: number;
  trunNumber: number;
  sampleNumber: number;
}

/** tfra (8.8.10): its last entry (entries are in time order), or null when it has none. */
export function parseTfra(b: Bytes, tfra: Box): TfraEntry | null {
  const c = new BoxCursor(b, tfra);
  const { version } = c.fullBoxHeader();
  const trackId = c.u32();
  const sizes = c.u32();
  const trafSize = ((sizes >>> 4) & 3) + 1;
  const trunSize = ((sizes >>> 2) & 3) + 1;
  const sampleSize = (sizes & 3) + 1;
  const count = c.u32();
  const entrySize = (version === 1 ? 16 : 8) + trafSize + trunSize + sampleSize;
  if (count * entrySize > c.remaining) throw corrupt("tfra");
  if (count === 0) return null;
  c.at += (count - 1) * entrySize;
  const time = c.uVersioned(version);
  const moofOffset = c.uVersioned(version);
  const trafNumber = c.uint(trafSize);
  const trunNumber = c.uint(trunSize);
  const sampleNumber = c.uint(sampleSize);
  return { trackId, time, moofOffset, trafNumber, trunNumber, sampleNumber };
}
