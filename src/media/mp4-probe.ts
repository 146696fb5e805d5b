/**
 * Minimal MP4/MOV (ISO BMFF / QuickTime) probe.
 *
 * Reads only what it needs through ranged reads so a multi-GB upload in R2 is
 * never downloaded: the top-level box headers, then the whole moov box (which
 * holds all the metadata, typically a few KB to a few MB). Media data (mdat) is
 * skipped by offset. A fragmented file (moov with mvex) takes its duration
 * from the fragments instead, see mp4-fragments.ts.
 *
 * Every length in the file is untrusted: all reads are bounds-checked and any
 * malformed structure ends in a MediaProbeError with a user-facing message.
 */

import {
  Bytes,
  children,
  corrupt,
  descend,
  fourcc,
  MediaProbeError,
  parseBoxHeader,
  type Box,
} from "./mp4-boxes";
import {
  fragmentedDuration,
  parseMvex,
  type FragmentSetup,
  type FragmentTrack,
} from "./mp4-fragments";
import { CachedReader, type RangeReader } from "./mp4-reader";

export { MediaProbeError } from "./mp4-boxes";
export type { RangeReader } from "./mp4-reader";

export interface MediaInfo {
  /**
   * From mvhd (duration / timescale); falls back to the longest track's mdhd.
   * For a fragmented file: from mehd, mfra or the moofs (see `fragmented`).
   */
  durationSeconds: number;
  /** Video frame size from the visual sample entry, else from tkhd. */
  width: number | null;
  height: number | null;
  /** Sample entry fourcc of the first video track, e.g. "avc1", "hvc1", "mp4v". */
  videoCodec: string | null;
  /** "mp4a.40.2" style for mp4a (fourcc.OTI[.AOT]), else the sample entry fourcc. */
  audioCodec: string | null;
  /** Whether moov came before ("start") or after ("end") mdat. */
  moovPosition: "start" | "end";
  /** Only for a fragmented file (moov with mvex): where its duration came from. */
  fragmented?: { durationFrom: "mehd" | "mfra" | "moofs" };
}

/** Metadata larger than this is not a sane upload (and would not fit in memory comfortably). */
const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** Each top-level box costs a ranged read (a subrequest), so stop early on odd files. */
const MAX_TOP_LEVEL_BOXES = 100;
/** First read: covers ftyp + moov of most faststart files in a single request. */
const HEAD_READ_BYTES = 64 * 1024;

/** Top-level box types that may start a MP4/MOV file (ISO BMFF and QuickTime). */
const KNOWN_FIRST_BOXES = new Set([
  "ftyp",
  "moov",
  "mdat",
  "free",
  "skip",
  "wide",
  "pnot",
  "uuid",
  "styp",
  "sidx",
  "junk",
  "pdin",
]);

// ---------------------------------------------------------------------------
// Top level: walk box headers through the reader until moov is found.
// ---------------------------------------------------------------------------

export async function probeMp4(read: RangeReader, fileSize: number): Promise<MediaInfo> {
  if (!Number.isSafeInteger(fileSize) || fileSize < 8) {
    throw new MediaProbeError("not an MP4/MOV file: the file is too small");
  }
  const reader = new CachedReader(read, fileSize);
  await reader.prefetchHead(HEAD_READ_BYTES);

  let offset = 0;
  let sawMdat = false;
  let sawFtyp = false;
  for (let count = 0; offset < fileSize; count++) {
    if (count >= MAX_TOP_LEVEL_BOXES) {
      throw new MediaProbeError(
        `no moov box found in the first ${MAX_TOP_LEVEL_BOXES} top-level boxes`,
      );
    }
    if (fileSize - offset < 8) {
      // A few stray bytes after the last box: nothing more to find.
      break;
    }
    const header = await reader.read(offset, Math.min(16, fileSize - offset));
    if (count === 0 && !KNOWN_FIRST_BOXES.has(fourcc(header, 4))) {
      throw new MediaProbeError("not an MP4/MOV file: no ftyp or moov box");
    }
    const { type, headerSize, size: boxSize } = parseBoxHeader(header, offset, fileSize);

    if (type === "ftyp") sawFtyp = true;
    if (type === "mdat") sawMdat = true;
    if (type === "moov") {
      const payloadSize = boxSize - headerSize;
      if (payloadSize > MAX_MOOV_BYTES) {
        throw new MediaProbeError(
          `moov box too large (${payloadSize} bytes, limit ${MAX_MOOV_BYTES})`,
        );
      }
      const moov = await reader.read(offset + headerSize, payloadSize);
      const { fragments, ...info } = parseMoovSafely(moov);
      const result: MediaInfo = { ...info, moovPosition: sawMdat ? "end" : "start" };
      if (fragments) {
        const found = await fragmentedDuration(reader, fragments, offset + boxSize);
        // mehd covers the whole movie; the other sources only add fragments to what the moov holds.
        result.durationSeconds =
          found.from === "mehd"
            ? (found.seconds ?? 0)
            : Math.max(info.durationSeconds, found.seconds ?? 0);
        result.fragmented = { durationFrom: found.from };
      }
      return result;
    }
    offset += boxSize;
  }

  if (!sawFtyp && !sawMdat) {
    throw new MediaProbeError("not an MP4/MOV file: no ftyp or moov box");
  }
  throw new MediaProbeError("no moov box found: the file is incomplete or was not finalized");
}

// ---------------------------------------------------------------------------
// moov parsing (in memory, bounds-checked).
// ---------------------------------------------------------------------------

interface TrackInfo {
  handler: string;
  /** tkhd track_ID (fragments refer to tracks by it). */
  trackId: number | null;
  /** mdhd timescale and duration in those units (0 when unknown). */
  timescale: number;
  rawDuration: number;
  durationSeconds: number | null;
  tkhdWidth: number | null;
  tkhdHeight: number | null;
  sampleEntry: Box | null;
}

type MoovInfo = Omit<MediaInfo, "moovPosition" | "fragmented"> & {
  fragments: FragmentSetup | null;
};

function parseMoovSafely(moov: Uint8Array): MoovInfo {
  try {
    return parseMoov(new Bytes(moov));
  } catch (err) {
    // Safety net: our own checks should catch everything, but a bug must not
    // surface as a RangeError/500 for a bad upload.
    if (err instanceof MediaProbeError) throw err;
    if (err instanceof RangeError) throw corrupt("moov");
    throw err;
  }
}

function parseMoov(b: Bytes): MoovInfo {
  const top = children(b, 0, b.length);

  let movieDuration: number | null = null;
  let movieTimescale = 0;
  const mvhd = top.find((x) => x.type === "mvhd");
  if (mvhd) {
    const raw = parseTimescaledRaw(b, mvhd, "mvhd");
    movieTimescale = raw.timescale;
    movieDuration = secondsOf(raw);
  }

  const tracks = top.filter((x) => x.type === "trak").map((t) => parseTrak(b, t));

  let durationSeconds = movieDuration ?? 0;
  if (!(durationSeconds > 0)) {
    // mvhd missing or zero: use the longest track instead.
    durationSeconds = tracks.reduce((max, t) => Math.max(max, t.durationSeconds ?? 0), 0);
  }

  const video = tracks.find((t) => t.handler === "vide");
  const audio = tracks.find((t) => t.handler === "soun");

  let width: number | null = null;
  let height: number | null = null;
  let videoCodec: string | null = null;
  if (video) {
    if (video.sampleEntry) {
      videoCodec = video.sampleEntry.type;
      const size = visualEntrySize(b, video.sampleEntry);
      if (size) ({ width, height } = size);
    }
    if (width === null || height === null) {
      width = video.tkhdWidth;
      height = video.tkhdHeight;
    }
  }

  let audioCodec: string | null = null;
  if (audio?.sampleEntry) audioCodec = audioCodecString(b, audio.sampleEntry);

  // mvex announces movie fragments after the moov (ISO/IEC 14496-12, 8.8.1).
  const mvex = top.find((x) => x.type === "mvex");
  const fragments = mvex ? fragmentSetup(b, mvex, movieTimescale, tracks) : null;

  return { durationSeconds, width, height, videoCodec, audioCodec, fragments };
}

function fragmentSetup(
  b: Bytes,
  mvexBox: Box,
  movieTimescale: number,
  tracks: TrackInfo[],
): FragmentSetup {
  const mvex = parseMvex(b, mvexBox);
  const byId = new Map<number, FragmentTrack>();
  for (const t of tracks) {
    if (t.trackId === null) continue;
    byId.set(t.trackId, {
      timescale: t.timescale,
      moovDuration: t.rawDuration,
      defaultSampleDuration: mvex.defaultDurations.get(t.trackId) ?? null,
    });
  }
  return { movieTimescale, mehdDuration: mvex.mehdDuration, tracks: byId };
}

function parseTrak(b: Bytes, trak: Box): TrackInfo {
  const info: TrackInfo = {
    handler: "",
    trackId: null,
    timescale: 0,
    rawDuration: 0,
    durationSeconds: null,
    tkhdWidth: null,
    tkhdHeight: null,
    sampleEntry: null,
  };
  const kids = children(b, trak.start, trak.end);

  const tkhd = kids.find((x) => x.type === "tkhd");
  if (tkhd) {
    // Width/height are 16.16 fixed point at the end of tkhd; their offset depends on the version.
    const version = b.u8(tkhd.start, tkhd);
    info.trackId = b.u32(tkhd.start + (version === 1 ? 20 : 12), tkhd);
    const at = tkhd.start + (version === 1 ? 88 : 76);
    const w = b.u32(at, tkhd) >>> 16;
    const h = b.u32(at + 4, tkhd) >>> 16;
    if (w > 0 && h > 0) {
      info.tkhdWidth = w;
      info.tkhdHeight = h;
    }
  }

  const mdia = kids.find((x) => x.type === "mdia");
  if (!mdia) return info;
  const mdiaKids = children(b, mdia.start, mdia.end);

  const mdhd = mdiaKids.find((x) => x.type === "mdhd");
  if (mdhd) {
    const raw = parseTimescaledRaw(b, mdhd, "mdhd");
    info.timescale = raw.timescale;
    info.rawDuration = raw.duration ?? 0;
    info.durationSeconds = secondsOf(raw);
  }

  // The mdia-level hdlr gives the media type. (QuickTime has a second hdlr in
  // minf for the data reference; that one is ignored.)
  const hdlr = mdiaKids.find((x) => x.type === "hdlr");
  if (hdlr) info.handler = b.fourcc(hdlr.start + 8, hdlr);

  const stsd = descend(b, mdiaKids, ["minf", "stbl", "stsd"]);
  if (stsd) {
    // stsd: version/flags, entry_count, then sample entries as boxes. Use the first.
    const entryCount = b.u32(stsd.start + 4, stsd);
    if (entryCount > 0) {
      info.sampleEntry = children(b, stsd.start + 8, stsd.end, 1)[0] ?? null;
    }
  }
  return info;
}

interface Timescaled {
  timescale: number;
  /** null for the "unknown" marker. */
  duration: number | null;
}

/** mvhd and mdhd share the layout up to the duration. */
export function parseTimescaledRaw(b: Bytes, box: Box, name: string): Timescaled {
  const version = b.u8(box.start, box);
  if (version === 1) {
    return { timescale: b.u32(box.start + 20, box), duration: b.u64(box.start + 24, box) };
  }
  if (version === 0) {
    const duration = b.u32(box.start + 16, box);
    return {
      timescale: b.u32(box.start + 12, box),
      duration: duration === 0xffffffff ? null : duration,
    };
  }
  throw new MediaProbeError(`corrupt MP4/MOV file: unsupported ${name} version ${version}`);
}

/** Seconds, or null if unknown. */
function secondsOf({ timescale, duration }: Timescaled): number | null {
  if (duration === null || timescale === 0) return null;
  return duration / timescale;
}

/** Visual sample entries have width/height at a fixed offset after the 8-byte SampleEntry header. */
function visualEntrySize(b: Bytes, entry: Box): { width: number; height: number } | null {
  // reserved(6) data_reference_index(2) pre_defined(2) reserved(2) pre_defined(12) width(2) height(2)
  if (entry.end - entry.start < 28) return null;
  const width = b.u16(entry.start + 24, entry);
  const height = b.u16(entry.start + 26, entry);
  return width > 0 && height > 0 ? { width, height } : null;
}

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
  const version = b.u16(entry.start + 8, entry);
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

interface EsInfo {
  objectType: number | null;
  audioObjectType: number | null;
}

/** esds: FullBox header, then an ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4) → DecoderSpecificInfo (tag 5). */
function parseEsds(b: Bytes, esds: Box): EsInfo {
  const result: EsInfo = { objectType: null, audioObjectType: null };
  const es = readDescriptor(b, esds.start + 4, esds.end);
  if (!es || es.tag !== 0x03) return result;

  let p = es.start + 2; // ES_ID
  const flags = b.u8(p++, esds);
  if (flags & 0x80) p += 2; // dependsOn_ES_ID
  if (flags & 0x40) p += 1 + b.u8(p, esds); // URL string
  if (flags & 0x20) p += 2; // OCR_ES_Id

  // Sub-descriptors of the ES_Descriptor; we want DecoderConfigDescriptor.
  const dc = findDescriptor(b, p, es.end, 0x04);
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
  const bounds = { type: "esds", start: offset, end: limit };
  const tag = b.u8(offset, bounds);
  let size = 0;
  let p = offset + 1;
  for (let i = 0; i < 4; i++) {
    const byte = b.u8(p++, bounds);
    size = size * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  // Some muxers write slightly wrong sizes; clamp to the parent instead of failing.
  return { tag, start: p, end: Math.min(p + size, limit) };
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
// Service rules.
// ---------------------------------------------------------------------------

const H264_CODECS = new Set(["avc1", "avc3"]);
/** MPEG-4 Audio (0x40) and MPEG-2 AAC Main/LC/SSR (0x66-0x68). */
const AAC_OBJECT_TYPES = new Set([0x40, 0x66, 0x67, 0x68]);
const MAX_LONG_SIDE = 1920;
const MAX_SHORT_SIDE = 1080;

/** Returns null when the media meets the service's rules, else a user-facing reason. */
export function checkMediaRequirements(info: MediaInfo): string | null {
  if (info.videoCodec === null) return "no video track";
  if (!H264_CODECS.has(info.videoCodec)) {
    return `video codec must be H.264 (avc1), got ${displayCodec(info.videoCodec)}`;
  }
  if (info.audioCodec !== null && !isAac(info.audioCodec)) {
    return `audio codec must be AAC, got ${displayCodec(info.audioCodec)}`;
  }
  if (info.width === null || info.height === null)
    return "could not determine the video frame size";
  // Compare long/short sides so portrait 1080x1920 is allowed like landscape.
  const long = Math.max(info.width, info.height);
  const short = Math.min(info.width, info.height);
  if (long > MAX_LONG_SIDE || short > MAX_SHORT_SIDE) {
    return `frame size ${info.width}x${info.height} exceeds ${MAX_LONG_SIDE}x${MAX_SHORT_SIDE}`;
  }
  if (!(info.durationSeconds > 0)) return "video duration must be greater than 0";
  return null;
}

function isAac(codec: string): boolean {
  const match = /^mp4a\.([0-9A-Fa-f]{2})(?:\.|$)/.exec(codec);
  return match !== null && AAC_OBJECT_TYPES.has(parseInt(match[1]!, 16));
}

/** Fourccs come from the file: keep the message readable if they hold odd bytes. */
function displayCodec(codec: string): string {
  const clean = codec.replace(/[^\x20-\x7e]/g, "?").trim();
  return clean === "" ? "unknown" : clean;
}

/**
 * The codec rules of checkMediaRequirements alone, for what is known before the whole file is
 * (the first part of a faststart upload): null when the codecs pass or are not known yet.
 */
export function codecRefusal(videoCodec: string | null, audioCodec: string | null): string | null {
  if (videoCodec !== null && !H264_CODECS.has(videoCodec))
    return `video codec must be H.264 (avc1), got ${displayCodec(videoCodec)}`;
  if (audioCodec !== null && !isAac(audioCodec))
    return `audio codec must be AAC, got ${displayCodec(audioCodec)}`;
  return null;
}
