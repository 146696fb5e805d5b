/**
 * Every sample of a stored MP4/MOV, per track: where its bytes are, how long it lasts, its
 * composition offset and whether it is a keyframe. What the HLS packager cuts into segments.
 *
 * Sources: the moov's sample tables (stts, ctts, stss, stsc, stsz/stz2, stco/co64) for a
 * progressive file, moov at the start or the end; for a fragmented file, the samples the moov
 * holds (if any) and then each moof's truns. Reads go through the same counting reader as the
 * probe: one read for the moov, and one per fragment (bounded by MAX_FRAGMENT_WALK_READS).
 *
 * Every length in the file is untrusted: reads are bounds-checked (MediaProbeError).
 */
import {
  Bytes,
  children,
  corrupt,
  descend,
  MediaProbeError,
  parseBoxHeader,
  type Box,
} from "../mp4-boxes";
import { audioCodecString, findEsds, parseTimescaledRaw } from "../mp4-probe";
import { CachedReader, ReadBudgetExceeded, type RangeReader } from "../mp4-reader";
import { box } from "./box-writer";

/** The moov is read whole; the probe already refused files whose moov is larger. */
const MAX_MOOV_BYTES = 64 * 1024 * 1024;
const MAX_TOP_LEVEL_BOXES = 100;
/**
 * A fragmented file costs one read per fragment to index (once per file): 20,000 reads cover
 * 11 hours of 2 s fragments. Past it the file has no HLS stream (its MP4 still plays).
 */
export const MAX_FRAGMENT_WALK_READS = 20_000;
const WALK_WINDOW_BYTES = 64 * 1024;

/**
 * The index's budget (docs/api.md#what-e2-refuses): samples are kept in memory while the index
 * is built, so a file may hold at most this many in all (2.3 hours of 30 fps video with 44.1 kHz
 * AAC); the memory it takes is measured in docs/benchmarks.md.
 */
export const MAX_INDEX_SAMPLES = 600_000;
/** A track with more samples per second of its duration than this is not a real video or AAC track. */
export const MAX_SAMPLES_PER_SECOND = 1_000;
/** ... plus this many, so that a track of a fraction of a second is not judged by its rate. */
const SAMPLE_RATE_SLACK = 1_000;

/**
 * A file the service accepts whose stream would exceed the packager's budget (too many samples
 * or fragments): it has no HLS stream, its MP4 still plays. Not a fault of the file.
 */
export class PackagingBudgetExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PackagingBudgetExceeded";
  }
}

/** Samples of the file so far, against MAX_INDEX_SAMPLES: checked before arrays grow. */
class SampleBudget {
  used = 0;
  take(count: number): void {
    if (count > MAX_INDEX_SAMPLES - this.used)
      throw new PackagingBudgetExceeded(
        `the file has more than ${MAX_INDEX_SAMPLES.toLocaleString("en-US")} samples`,
      );
    this.used += count;
  }
}

/** The bytes a sample may point into: the media data of a fragment, else the whole file. */
interface DataRegion {
  start: number;
  end: number;
  /** How the refusal names the region. */
  name: string;
}

/** Every sample must have at least one byte, all of them inside the media data it points into. */
function checkSample(offset: number, size: number, region: DataRegion): void {
  if (size < 1) throw new MediaProbeError("corrupt MP4/MOV file: a sample has no bytes");
  if (offset < region.start || offset + size > region.end)
    throw new MediaProbeError(
      `corrupt MP4/MOV file: a sample at byte ${offset} of ${size} bytes lies outside ${region.name}`,
    );
}

export type TrackKind = "video" | "audio";

/** One track's samples in decode order (parallel arrays). */
export interface Samples {
  offsets: number[];
  sizes: number[];
  durations: number[];
  /** Composition time offsets (pts − dts), signed. */
  ctos: number[];
  /** Keyframes (sync samples); audio samples are all sync. */
  sync: boolean[];
}

export interface Track {
  id: number;
  kind: TrackKind;
  timescale: number;
  /** RFC 6381 codec string: avc1.64000d, mp4a.40.2. */
  codec: string;
  width: number;
  height: number;
  /** Audio: channel count and sample rate (for the init segment's sample entry). */
  channels: number;
  sampleRate: number;
  /** The sample entry box, header included (video: as stored; audio: an ISO mp4a entry with its esds). */
  sampleEntry: Uint8Array;
  /**
   * Where presentation starts, in track units (the first edit's media_time): a video with
   * B-frames starts at its first frame's composition time, not 0.
   */
  presentationStart: number;
  samples: Samples;
}

export interface MediaTracks {
  video: Track;
  audio: Track | null;
}

const emptySamples = (): Samples => ({ offsets: [], sizes: [], durations: [], ctos: [], sync: [] });

/** Reads the tracks and sample tables of a stored file (the first video and first audio track). */
export async function readTracks(read: RangeReader, fileSize: number): Promise<MediaTracks> {
  const reader = new CachedReader(read, fileSize);
  await reader.prefetchHead(64 * 1024);
  let offset = 0;
  for (let count = 0; offset + 8 <= fileSize && count < MAX_TOP_LEVEL_BOXES; count++) {
    const header = await reader.read(offset, Math.min(16, fileSize - offset));
    const { type, headerSize, size } = parseBoxHeader(header, offset, fileSize);
    if (type === "moov") {
      if (size - headerSize > MAX_MOOV_BYTES) throw new MediaProbeError("moov box too large");
      const moov = new Bytes(await reader.read(offset + headerSize, size - headerSize));
      const budget = new SampleBudget();
      const parsed = parseMoovTracks(moov, fileSize, budget);
      if (parsed.fragmented) await readFragments(reader, parsed, offset + size, budget);
      for (const track of parsed.audio ? [parsed.video, parsed.audio] : [parsed.video])
        checkSampleRate(track);
      return { video: parsed.video, audio: parsed.audio };
    }
    offset += size;
  }
  throw new MediaProbeError("no moov box found");
}

interface ParsedMoov extends MediaTracks {
  fragmented: boolean;
  /** trex defaults by track id: duration, size, flags. */
  trex: Map<number, { duration: number; size: number; flags: number }>;
}

/** A track's sample count against its duration (MAX_SAMPLES_PER_SECOND). */
function checkSampleRate(track: Track): void {
  const durations = track.samples.durations;
  let total = 0;
  for (let i = 0; i < durations.length; i++) total += durations[i]!;
  const seconds = total / track.timescale;
  if (durations.length > MAX_SAMPLES_PER_SECOND * seconds + SAMPLE_RATE_SLACK)
    throw new MediaProbeError(
      `corrupt MP4/MOV file: the ${track.kind} track has ${durations.length} samples in ${seconds.toFixed(3)} s, more than ${MAX_SAMPLES_PER_SECOND} per second`,
    );
}

function parseMoovTracks(b: Bytes, fileSize: number, budget: SampleBudget): ParsedMoov {
  const top = children(b, 0, b.length);
  let video: Track | null = null;
  let audio: Track | null = null;
  for (const trak of top.filter((x) => x.type === "trak")) {
    const track = parseTrack(b, trak, fileSize, budget);
    if (track?.kind === "video" && !video) video = track;
    if (track?.kind === "audio" && !audio) audio = track;
  }
  if (!video) throw new MediaProbeError("no video track");
  const trex = new Map<number, { duration: number; size: number; flags: number }>();
  const mvex = top.find((x) => x.type === "mvex");
  for (const box of mvex ? children(b, mvex.start, mvex.end) : []) {
    if (box.type !== "trex") continue;
    // version/flags, track_ID, sample_description_index, duration, size, flags
    trex.set(b.u32(box.start + 4, box), {
      duration: b.u32(box.start + 12, box),
      size: b.u32(box.start + 16, box),
      flags: b.u32(box.start + 20, box),
    });
  }
  return { video, audio, fragmented: mvex !== undefined, trex };
}

function parseTrack(b: Bytes, trak: Box, fileSize: number, budget: SampleBudget): Track | null {
  const kids = children(b, trak.start, trak.end);
  const tkhd = kids.find((x) => x.type === "tkhd");
  const mdia = kids.find((x) => x.type === "mdia");
  if (!tkhd || !mdia) return null;
  const id = b.u32(tkhd.start + (b.u8(tkhd.start, tkhd) === 1 ? 20 : 12), tkhd);
  const mdiaKids = children(b, mdia.start, mdia.end);
  const hdlr = mdiaKids.find((x) => x.type === "hdlr");
  const handler = hdlr ? b.fourcc(hdlr.start + 8, hdlr) : "";
  const kind: TrackKind | null = handler === "vide" ? "video" : handler === "soun" ? "audio" : null;
  const mdhd = mdiaKids.find((x) => x.type === "mdhd");
  const stbl = descend(b, mdiaKids, ["minf", "stbl"]);
  if (!kind || !mdhd || !stbl) return null;
  const timescale = parseTimescaledRaw(b, mdhd, "mdhd").timescale;
  if (timescale === 0) throw corrupt("mdhd");
  const tables = children(b, stbl.start, stbl.end);
  const stsd = tables.find((x) => x.type === "stsd");
  const entry =
    stsd && b.u32(stsd.start + 4, stsd) > 0
      ? children(b, stsd.start + 8, stsd.end, 1)[0]
      : undefined;
  if (!entry) throw new MediaProbeError(`track ${id} has no sample description`);

  const track: Track = {
    id,
    kind,
    timescale,
    codec: "",
    width: 0,
    height: 0,
    channels: 0,
    sampleRate: 0,
    sampleEntry: new Uint8Array(0),
    presentationStart: presentationStart(b, kids),
    samples: sampleTables(b, tables, kind, fileSize, budget),
  };
  if (kind === "video") describeVideo(b, entry, track);
  else describeAudio(b, entry, track);
  return track;
}

/** The first non-empty edit's media_time (an edit list that shifts presentation), else 0. */
function presentationStart(b: Bytes, trakKids: Box[]): number {
  const elst = descend(b, trakKids, ["edts", "elst"]);
  if (!elst) return 0;
  const version = b.u8(elst.start, elst);
  const count = b.u32(elst.start + 4, elst);
  const stride = version === 1 ? 20 : 12;
  for (let i = 0, p = elst.start + 8; i < count; i++, p += stride) {
    const mediaTime = version === 1 ? b.u64(p + 8, elst) : b.u32(p + 4, elst);
    // -1 (all ones) marks an empty edit; u64 of all ones is rejected by readUint64 as out of range.
    if (version === 0 && mediaTime === 0xffffffff) continue;
    return mediaTime;
  }
  return 0;
}

function describeVideo(b: Bytes, entry: Box, track: Track): void {
  if (entry.type !== "avc1" && entry.type !== "avc3")
    throw new MediaProbeError(`video codec ${entry.type} cannot be streamed`);
  track.width = b.u16(entry.start + 24, entry);
  track.height = b.u16(entry.start + 26, entry);
  // The visual sample entry's fixed fields take 78 bytes; its boxes (avcC, pasp…) follow.
  const avcC = children(b, entry.start + 78, entry.end).find((x) => x.type === "avcC");
  if (!avcC) throw new MediaProbeError("H.264 track without an avcC box");
  const hex = (at: number) => b.u8(at, avcC).toString(16).padStart(2, "0");
  track.codec = `${entry.type}.${hex(avcC.start + 1)}${hex(avcC.start + 2)}${hex(avcC.start + 3)}`;
  // Rewrapped under an 8-byte header (the file's may be a 16-byte one).
  track.sampleEntry = box(entry.type, b.slice(entry.start, entry.end));
}

function describeAudio(b: Bytes, entry: Box, track: Track): void {
  track.codec = audioCodecString(b, entry);
  const esds = entry.type === "mp4a" ? findEsds(b, entry) : null;
  if (!esds) throw new MediaProbeError(`audio codec ${entry.type} cannot be streamed`);
  track.channels = b.u16(entry.start + 16, entry) || 2;
  track.sampleRate = Math.min(track.timescale, 0xffff);
  // A plain ISO mp4a entry (version 0) around the file's esds: QuickTime's v1/v2 sound
  // descriptions (esds inside a 'wave' box) are not understood by every MSE parser.
  const fixed = new Uint8Array(28);
  const view = new DataView(fixed.buffer);
  view.setUint16(6, 1); // data_reference_index
  view.setUint16(16, track.channels);
  view.setUint16(18, 16); // sample size
  view.setUint32(24, track.sampleRate * 65536);
  track.sampleEntry = box("mp4a", fixed, box("esds", b.slice(esds.start, esds.end)));
}

// ---------------------------------------------------------------------------
// Sample tables of a progressive file.
// ---------------------------------------------------------------------------

function sampleTables(
  b: Bytes,
  tables: Box[],
  kind: TrackKind,
  fileSize: number,
  budget: SampleBudget,
): Samples {
  const find = (type: string) => tables.find((x) => x.type === type);
  const sizes = sampleSizes(b, find("stsz"), find("stz2"), fileSize, budget);
  const count = sizes.length;
  const samples = emptySamples();
  if (count === 0) return samples;
  samples.sizes = sizes;
  samples.durations = expandRuns(b, find("stts"), count, "stts", false);
  samples.ctos = find("ctts")
    ? expandRuns(b, find("ctts"), count, "ctts", true)
    : new Array<number>(count).fill(0);
  samples.sync = syncSamples(b, find("stss"), count, kind);
  samples.offsets = sampleOffsets(b, find("stsc"), find("stco") ?? find("co64"), sizes, fileSize);
  return samples;
}

/**
 * Checked before any array is made: `count` samples of at least one byte each (of `fixed` bytes,
 * when the table gives one size for all) must fit in the file, and in the index's budget.
 */
function checkSampleCount(
  count: number,
  fixed: number,
  fileSize: number,
  budget: SampleBudget,
  table: string,
): void {
  if (count * Math.max(fixed, 1) > fileSize)
    throw new MediaProbeError(
      `corrupt MP4/MOV file: its '${table}' box claims ${count} samples${fixed > 0 ? ` of ${fixed} bytes` : ""}, more than the file's ${fileSize} bytes can hold`,
    );
  budget.take(count);
}

function sampleSizes(
  b: Bytes,
  stsz: Box | undefined,
  stz2: Box | undefined,
  fileSize: number,
  budget: SampleBudget,
): number[] {
  if (stsz) {
    const fixed = b.u32(stsz.start + 4, stsz);
    const count = b.u32(stsz.start + 8, stsz);
    if (fixed !== 0) {
      checkSampleCount(count, fixed, fileSize, budget, "stsz");
      return new Array<number>(count).fill(fixed);
    }
    if (count * 4 > stsz.end - stsz.start - 12) throw corrupt("stsz");
    checkSampleCount(count, 0, fileSize, budget, "stsz");
    const sizes = new Array<number>(count);
    for (let i = 0; i < count; i++) sizes[i] = b.u32(stsz.start + 12 + 4 * i, stsz);
    return sizes;
  }
  if (stz2) {
    const field = b.u8(stz2.start + 7, stz2);
    const count = b.u32(stz2.start + 8, stz2);
    if (![4, 8, 16].includes(field) || (count * field) / 8 > stz2.end - stz2.start - 12)
      throw corrupt("stz2");
    checkSampleCount(count, 0, fileSize, budget, "stz2");
    const sizes = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      const at = stz2.start + 12;
      if (field === 16) sizes[i] = b.u16(at + 2 * i, stz2);
      else if (field === 8) sizes[i] = b.u8(at + i, stz2);
      else sizes[i] = (b.u8(at + (i >> 1), stz2) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    }
    return sizes;
  }
  throw new MediaProbeError("a track has no sample size table (stsz)");
}

/** stts and ctts: (count, value) runs expanded to one value per sample. */
function expandRuns(
  b: Bytes,
  box: Box | undefined,
  count: number,
  name: string,
  signed: boolean,
): number[] {
  if (!box) throw new MediaProbeError(`a track has no ${name} table`);
  const entries = b.u32(box.start + 4, box);
  if (entries * 8 > box.end - box.start - 8) throw corrupt(name);
  const out = new Array<number>(count);
  let i = 0;
  for (let e = 0; e < entries && i < count; e++) {
    const run = b.u32(box.start + 8 + 8 * e, box);
    const raw = b.u32(box.start + 12 + 8 * e, box);
    const value = signed ? raw | 0 : raw;
    for (let k = 0; k < run && i < count; k++) out[i++] = value;
  }
  // Tables shorter than the sample count repeat their last value (a lenient reading of odd muxers).
  const last = i > 0 ? out[i - 1]! : 0;
  while (i < count) out[i++] = last;
  return out;
}

function syncSamples(b: Bytes, stss: Box | undefined, count: number, kind: TrackKind): boolean[] {
  if (!stss || kind === "audio") return new Array<boolean>(count).fill(true);
  const sync = new Array<boolean>(count).fill(false);
  const entries = b.u32(stss.start + 4, stss);
  if (entries * 4 > stss.end - stss.start - 8) throw corrupt("stss");
  for (let e = 0; e < entries; e++) {
    const n = b.u32(stss.start + 8 + 4 * e, stss);
    if (n >= 1 && n <= count) sync[n - 1] = true;
  }
  return sync;
}

/** File offset of each sample: chunk offsets (stco/co64) split by samples per chunk (stsc). */
function sampleOffsets(
  b: Bytes,
  stsc: Box | undefined,
  chunkBox: Box | undefined,
  sizes: number[],
  fileSize: number,
): number[] {
  if (!stsc || !chunkBox) throw new MediaProbeError("a track has no chunk tables (stsc, stco)");
  const file: DataRegion = { start: 0, end: fileSize, name: "the file" };
  const wide = chunkBox.type === "co64";
  const chunks = b.u32(chunkBox.start + 4, chunkBox);
  if (chunks * (wide ? 8 : 4) > chunkBox.end - chunkBox.start - 8) throw corrupt(chunkBox.type);
  const runs = b.u32(stsc.start + 4, stsc);
  if (runs * 12 > stsc.end - stsc.start - 8) throw corrupt("stsc");
  const offsets = new Array<number>(sizes.length);
  let sample = 0;
  for (let r = 0; r < runs && sample < sizes.length; r++) {
    const firstChunk = b.u32(stsc.start + 8 + 12 * r, stsc);
    const perChunk = b.u32(stsc.start + 12 + 12 * r, stsc);
    const nextFirst = r + 1 < runs ? b.u32(stsc.start + 20 + 12 * r, stsc) : chunks + 1;
    if (firstChunk < 1 || nextFirst < firstChunk) throw corrupt("stsc");
    for (
      let chunk = firstChunk;
      chunk < nextFirst && chunk <= chunks && sample < sizes.length;
      chunk++
    ) {
      const at = chunkBox.start + 8 + (chunk - 1) * (wide ? 8 : 4);
      let offset = wide ? b.u64(at, chunkBox) : b.u32(at, chunkBox);
      if (offset >= fileSize)
        throw new MediaProbeError(
          `corrupt MP4/MOV file: chunk ${chunk} of a track starts at byte ${offset}, past the end of the file (${fileSize} bytes)`,
        );
      for (let k = 0; k < perChunk && sample < sizes.length; k++) {
        checkSample(offset, sizes[sample]!, file);
        offsets[sample] = offset;
        offset += sizes[sample]!;
        sample++;
      }
    }
  }
  if (sample < sizes.length)
    throw new MediaProbeError(
      "corrupt MP4/MOV file: the chunk tables describe fewer samples than stsz",
    );
  return offsets;
}

// ---------------------------------------------------------------------------
// Fragments (moof + mdat after the moov).
// ---------------------------------------------------------------------------

const TFHD_BASE_DATA_OFFSET = 0x01;
const TFHD_SAMPLE_DESCRIPTION_INDEX = 0x02;
const TFHD_DEFAULT_DURATION = 0x08;
const TFHD_DEFAULT_SIZE = 0x10;
const TFHD_DEFAULT_FLAGS = 0x20;
const TRUN_DATA_OFFSET = 0x01;
const TRUN_FIRST_SAMPLE_FLAGS = 0x04;
const TRUN_DURATION = 0x100;
const TRUN_SIZE = 0x200;
const TRUN_FLAGS = 0x400;
const TRUN_CTO = 0x800;
/** sample_is_non_sync_sample in the sample flags (ISO/IEC 14496-12, 8.8.3.1). */
const NON_SYNC = 0x00010000;

async function readFragments(
  reader: CachedReader,
  moov: ParsedMoov,
  from: number,
  budget: SampleBudget,
): Promise<void> {
  reader.limitReads(MAX_FRAGMENT_WALK_READS);
  const byId = new Map<number, Track>([[moov.video.id, moov.video]]);
  if (moov.audio) byId.set(moov.audio.id, moov.audio);
  const file: DataRegion = { start: 0, end: reader.fileSize, name: "the file" };
  let offset = from;
  try {
    while (offset + 8 <= reader.fileSize) {
      const header = await reader.readAhead(
        offset,
        Math.min(16, reader.fileSize - offset),
        WALK_WINDOW_BYTES,
      );
      const { type, size } = parseBoxHeader(header, offset, reader.fileSize);
      if (type === "moof") {
        if (size > 16 * 1024 * 1024) throw corrupt("moof");
        const bytes = await reader.readAhead(offset, size, WALK_WINDOW_BYTES);
        const data = (await mediaDataAfter(reader, offset + size)) ?? file;
        addMoofSamples(new Bytes(bytes), offset, byId, moov.trex, data, budget);
      } else if (type === "mfra") {
        break;
      }
      offset += size;
    }
  } catch (err) {
    if (!(err instanceof ReadBudgetExceeded)) throw err;
    throw new PackagingBudgetExceeded(
      `the file has more fragments than ${MAX_FRAGMENT_WALK_READS} reads can index`,
    );
  }
}

/** The payload of the mdat box at `offset` (the one after a moof holds its samples), if it is one. */
async function mediaDataAfter(reader: CachedReader, offset: number): Promise<DataRegion | null> {
  if (offset + 8 > reader.fileSize) return null;
  const header = await reader.readAhead(
    offset,
    Math.min(16, reader.fileSize - offset),
    WALK_WINDOW_BYTES,
  );
  const { type, headerSize, size } = parseBoxHeader(header, offset, reader.fileSize);
  if (type !== "mdat") return null;
  return {
    start: offset + headerSize,
    end: offset + size,
    name: `the 'mdat' box at byte ${offset}`,
  };
}

function addMoofSamples(
  b: Bytes,
  moofOffset: number,
  tracks: Map<number, Track>,
  trex: ParsedMoov["trex"],
  data: DataRegion,
  budget: SampleBudget,
): void {
  const moof = children(b, 0, b.length, 1)[0];
  if (!moof || moof.type !== "moof") throw corrupt("moof");
  for (const traf of children(b, moof.start, moof.end).filter((x) => x.type === "traf")) {
    const kids = children(b, traf.start, traf.end);
    const tfhd = kids.find((x) => x.type === "tfhd");
    if (!tfhd) throw corrupt("traf");
    const flags = b.u32(tfhd.start, tfhd) & 0xffffff;
    const track = tracks.get(b.u32(tfhd.start + 4, tfhd));
    if (!track) continue;
    const defaults = trex.get(track.id) ?? { duration: 0, size: 0, flags: 0 };
    let p = tfhd.start + 8;
    let base = moofOffset;
    if (flags & TFHD_BASE_DATA_OFFSET) (base = b.u64(p, tfhd)), (p += 8);
    if (flags & TFHD_SAMPLE_DESCRIPTION_INDEX) p += 4;
    let duration = defaults.duration;
    let size = defaults.size;
    let sampleFlags = defaults.flags;
    if (flags & TFHD_DEFAULT_DURATION) (duration = b.u32(p, tfhd)), (p += 4);
    if (flags & TFHD_DEFAULT_SIZE) (size = b.u32(p, tfhd)), (p += 4);
    if (flags & TFHD_DEFAULT_FLAGS) sampleFlags = b.u32(p, tfhd);
    let dataEnd = base;
    for (const trun of kids.filter((x) => x.type === "trun")) {
      dataEnd = addTrunSamples(b, trun, track, {
        base,
        dataEnd,
        duration,
        size,
        flags: sampleFlags,
        data,
        budget,
      });
    }
  }
}

interface TrunDefaults {
  base: number;
  /** Where the previous trun's data ended: a trun without data_offset continues there. */
  dataEnd: number;
  duration: number;
  size: number;
  flags: number;
  /** Where the samples must lie. */
  data: DataRegion;
  budget: SampleBudget;
}

function addTrunSamples(b: Bytes, trun: Box, track: Track, d: TrunDefaults): number {
  const version = b.u8(trun.start, trun);
  const flags = b.u32(trun.start, trun) & 0xffffff;
  const count = b.u32(trun.start + 4, trun);
  let p = trun.start + 8;
  let offset = d.dataEnd;
  if (flags & TRUN_DATA_OFFSET) (offset = d.base + (b.u32(p, trun) | 0)), (p += 4);
  let firstFlags: number | null = null;
  if (flags & TRUN_FIRST_SAMPLE_FLAGS) (firstFlags = b.u32(p, trun)), (p += 4);
  const fields = [TRUN_DURATION, TRUN_SIZE, TRUN_FLAGS, TRUN_CTO].filter((f) => flags & f).length;
  if (count * fields * 4 > trun.end - p) throw corrupt("trun");
  // Before any sample is added: each takes at least one byte (the default size when the trun
  // gives none) of the media data from its first sample on.
  const room = d.data.end - Math.max(offset, d.data.start);
  const each = flags & TRUN_SIZE ? 1 : Math.max(d.size, 1);
  if (count * each > room)
    throw new MediaProbeError(
      `corrupt MP4/MOV file: a 'trun' box claims ${count} samples${flags & TRUN_SIZE ? "" : ` of ${d.size} bytes`}, more than ${d.data.name} holds`,
    );
  d.budget.take(count);
  const s = track.samples;
  for (let i = 0; i < count; i++) {
    const duration = flags & TRUN_DURATION ? b.u32((p += 4) - 4, trun) : d.duration;
    const size = flags & TRUN_SIZE ? b.u32((p += 4) - 4, trun) : d.size;
    let sampleFlags = flags & TRUN_FLAGS ? b.u32((p += 4) - 4, trun) : d.flags;
    if (i === 0 && firstFlags !== null) sampleFlags = firstFlags;
    const raw = flags & TRUN_CTO ? b.u32((p += 4) - 4, trun) : 0;
    checkSample(offset, size, d.data);
    s.offsets.push(offset);
    s.sizes.push(size);
    s.durations.push(duration);
    s.ctos.push(version === 1 ? raw | 0 : raw);
    s.sync.push(track.kind === "audio" || (sampleFlags & NON_SYNC) === 0);
    offset += size;
  }
  return offset;
}
