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
  audioCodecString,
  audioEntryChannels,
  findEsds,
  parseAvcC,
  parseCtts,
  parseElst,
  parseHdlr,
  parseMdhd,
  parseStco,
  parseStsc,
  parseStsd,
  parseStss,
  parseStsz,
  parseStts,
  parseStz2,
  parseTfhd,
  parseTrex,
  parseTrun,
  parseVisualSampleEntry,
  readTrunSample,
  SAMPLE_IS_NON_SYNC,
  TRUN_SAMPLE_SIZE,
  type Trex,
  type TrunSample,
  tkhdTrackId,
  trakBoxes,
} from "../bmff/boxes";
import {
  HEAD_READ_BYTES,
  INDEX_WALK_WINDOW_BYTES,
  MAX_FRAGMENT_WALK_READS,
  MAX_INDEX_MOOF_BYTES,
  MAX_INDEX_SAMPLES,
  MAX_MOOV_BYTES,
  MAX_SAMPLES_PER_SECOND,
  MAX_TOP_LEVEL_BOXES,
  SAMPLE_RATE_SLACK,
} from "../bmff/limits";
import {
  type Box,
  Bytes,
  children,
  corrupt,
  descend,
  MediaProbeError,
  parseBoxHeader,
} from "../bmff/reader";
import { box } from "../bmff/writer";
import { needsTranscoding } from "../mp4-probe";
import { CachedReader, type RangeReader, ReadBudgetExceeded } from "../mp4-reader";

export {
  MAX_FRAGMENT_WALK_READS,
  MAX_INDEX_SAMPLES,
  MAX_SAMPLES_PER_SECOND,
} from "../bmff/limits";

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
  await reader.prefetchHead(HEAD_READ_BYTES);
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
  /** trex defaults by track id. */
  trex: Map<number, Trex>;
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
  const trex = new Map<number, Trex>();
  const mvex = top.find((x) => x.type === "mvex");
  for (const box of mvex ? children(b, mvex.start, mvex.end) : []) {
    if (box.type !== "trex") continue;
    const defaults = parseTrex(b, box);
    trex.set(defaults.trackId, defaults);
  }
  return { video, audio, fragmented: mvex !== undefined, trex };
}

function parseTrack(b: Bytes, trak: Box, fileSize: number, budget: SampleBudget): Track | null {
  const boxes = trakBoxes(b, trak);
  const { tkhd, mdia, mdhd, hdlr, stbl, tables } = boxes;
  if (!tkhd || !mdia) return null;
  const id = tkhdTrackId(b, tkhd);
  const handler = hdlr ? parseHdlr(b, hdlr) : "";
  const kind: TrackKind | null = handler === "vide" ? "video" : handler === "soun" ? "audio" : null;
  if (!kind || !mdhd || !stbl) return null;
  const timescale = parseMdhd(b, mdhd).timescale;
  if (timescale === 0) throw corrupt("mdhd");
  const stsd = tables.find((x) => x.type === "stsd");
  const entry = stsd ? parseStsd(b, stsd) : null;
  if (!entry) throw new MediaProbeError(`track ${id} has no sample description`);
  const elst = descend(b, boxes.kids, ["edts", "elst"]);

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
    presentationStart: elst ? parseElst(b, elst) : 0,
    samples: sampleTables(b, tables, kind, fileSize, budget),
  };
  if (kind === "video") describeVideo(b, entry, track);
  else describeAudio(b, entry, track);
  return track;
}

function describeVideo(b: Bytes, entry: Box, track: Track): void {
  const h264 = entry.type === "avc1" || entry.type === "avc3";
  if (!h264 && !needsTranscoding(entry.type))
    throw new MediaProbeError(`video codec ${entry.type} cannot be streamed`);
  const size = parseVisualSampleEntry(b, entry);
  track.width = size.width;
  track.height = size.height;
  if (!h264) {
    // Indexed for its segment timeline and transcoding only: the stream never lists it, so its
    // codec string is the fourcc (docs/renditions.md, "Sources that are not H.264").
    track.codec = entry.type;
    track.sampleEntry = box(entry.type, b.slice(entry.start, entry.end));
    return;
  }
  const avcC = parseAvcC(b, entry);
  if (!avcC) throw new MediaProbeError("H.264 track without an avcC box");
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  track.codec = `${entry.type}.${hex(avcC.profile)}${hex(avcC.compat)}${hex(avcC.level)}`;
  // Rewrapped under an 8-byte header (the file's may be a 16-byte one).
  track.sampleEntry = box(entry.type, b.slice(entry.start, entry.end));
}

function describeAudio(b: Bytes, entry: Box, track: Track): void {
  track.codec = audioCodecString(b, entry);
  const esds = entry.type === "mp4a" ? findEsds(b, entry) : null;
  if (!esds) throw new MediaProbeError(`audio codec ${entry.type} cannot be streamed`);
  track.channels = audioEntryChannels(b, entry) || 2;
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
  const stts = find("stts");
  if (!stts) throw new MediaProbeError("a track has no stts table");
  samples.durations = parseStts(b, stts, count);
  const ctts = find("ctts");
  samples.ctos = ctts ? parseCtts(b, ctts, count) : new Array<number>(count).fill(0);
  const stss = find("stss");
  samples.sync =
    stss && kind !== "audio" ? parseStss(b, stss, count) : new Array<boolean>(count).fill(true);
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
  const admit = (count: number, fixed: number, table: string) =>
    checkSampleCount(count, fixed, fileSize, budget, table);
  if (stsz) return parseStsz(b, stsz, admit);
  if (stz2) return parseStz2(b, stz2, admit);
  throw new MediaProbeError("a track has no sample size table (stsz)");
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
  const chunks = parseStco(b, chunkBox);
  const runs = parseStsc(b, stsc);
  const offsets = new Array<number>(sizes.length);
  let sample = 0;
  for (let r = 0; r < runs.runs && sample < sizes.length; r++) {
    const firstChunk = runs.firstChunk(r);
    const perChunk = runs.perChunk(r);
    const nextFirst = r + 1 < runs.runs ? runs.firstChunk(r + 1) : chunks.count + 1;
    if (firstChunk < 1 || nextFirst < firstChunk) throw corrupt("stsc");
    for (
      let chunk = firstChunk;
      chunk < nextFirst && chunk <= chunks.count && sample < sizes.length;
      chunk++
    ) {
      let offset = chunks.offset(chunk);
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
        INDEX_WALK_WINDOW_BYTES,
      );
      const { type, size } = parseBoxHeader(header, offset, reader.fileSize);
      if (type === "moof") {
        if (size > MAX_INDEX_MOOF_BYTES) throw corrupt("moof");
        const bytes = await reader.readAhead(offset, size, INDEX_WALK_WINDOW_BYTES);
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
    INDEX_WALK_WINDOW_BYTES,
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
    const tfhdBox = kids.find((x) => x.type === "tfhd");
    if (!tfhdBox) throw corrupt("traf");
    const tfhd = parseTfhd(b, tfhdBox);
    const track = tracks.get(tfhd.trackId);
    if (!track) continue;
    const defaults = trex.get(track.id);
    const base = tfhd.baseDataOffset ?? moofOffset;
    const d: TrunDefaults = {
      base,
      dataEnd: base,
      duration: tfhd.defaultSampleDuration ?? defaults?.defaultSampleDuration ?? 0,
      size: tfhd.defaultSampleSize ?? defaults?.defaultSampleSize ?? 0,
      flags: tfhd.defaultSampleFlags ?? defaults?.defaultSampleFlags ?? 0,
      data,
      budget,
    };
    for (const trun of kids.filter((x) => x.type === "trun")) {
      d.dataEnd = addTrunSamples(b, trun, track, d);
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

function addTrunSamples(b: Bytes, box: Box, track: Track, d: TrunDefaults): number {
  const trun = parseTrun(b, box);
  const count = trun.sampleCount;
  let offset = trun.dataOffset === null ? d.dataEnd : d.base + trun.dataOffset;
  // Before any sample is added: each takes at least one byte (the default size when the trun
  // gives none) of the media data from its first sample on.
  const room = d.data.end - Math.max(offset, d.data.start);
  const sized = (trun.flags & TRUN_SAMPLE_SIZE) !== 0;
  const each = sized ? 1 : Math.max(d.size, 1);
  if (count * each > room)
    throw new MediaProbeError(
      `corrupt MP4/MOV file: a 'trun' box claims ${count} samples${sized ? "" : ` of ${d.size} bytes`}, more than ${d.data.name} holds`,
    );
  d.budget.take(count);
  const s = track.samples;
  const audio = track.kind === "audio";
  const sample: TrunSample = { duration: 0, size: 0, flags: 0, cto: 0 };
  for (let i = 0; i < count; i++) {
    sample.duration = d.duration;
    sample.size = d.size;
    sample.flags = d.flags;
    sample.cto = 0;
    readTrunSample(trun, sample);
    if (i === 0 && trun.firstSampleFlags !== null) sample.flags = trun.firstSampleFlags;
    checkSample(offset, sample.size, d.data);
    s.offsets.push(offset);
    s.sizes.push(sample.size);
    s.durations.push(sample.duration);
    s.ctos.push(sample.cto);
    s.sync.push(audio || (sample.flags & SAMPLE_IS_NON_SYNC) === 0);
    offset += sample.size;
  }
  return offset;
}
