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
  audioCodecString,
  parseHdlr,
  parseMdhd,
  parseMvhd,
  parseStsd,
  parseTkhd,
  type Timescaled,
  trakBoxes,
  visualEntrySize,
} from "./bmff/boxes";
import { HEAD_READ_BYTES, MAX_MOOV_BYTES, MAX_TOP_LEVEL_BOXES } from "./bmff/limits";
import {
  type Box,
  Bytes,
  children,
  corrupt,
  fourcc,
  MediaProbeError,
  parseBoxHeader,
} from "./bmff/reader";
import {
  type FragmentSetup,
  type FragmentTrack,
  fragmentedDuration,
  parseMvex,
} from "./mp4-fragments";
import { CachedReader, type RangeReader } from "./mp4-reader";

export { MediaProbeError } from "./bmff/reader";
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
    const raw = parseMvhd(b, mvhd);
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
  const boxes = trakBoxes(b, trak);
  if (boxes.tkhd) {
    const tkhd = parseTkhd(b, boxes.tkhd);
    info.trackId = tkhd.trackId;
    if (tkhd.width > 0 && tkhd.height > 0) {
      info.tkhdWidth = tkhd.width;
      info.tkhdHeight = tkhd.height;
    }
  }
  if (!boxes.mdia) return info;
  if (boxes.mdhd) {
    const raw = parseMdhd(b, boxes.mdhd);
    info.timescale = raw.timescale;
    info.rawDuration = raw.duration ?? 0;
    info.durationSeconds = secondsOf(raw);
  }
  if (boxes.hdlr) info.handler = parseHdlr(b, boxes.hdlr);
  const stsd = boxes.tables.find((x) => x.type === "stsd");
  if (stsd) info.sampleEntry = parseStsd(b, stsd);
  return info;
}

/** Seconds, or null if unknown. */
function secondsOf({ timescale, duration }: Timescaled): number | null {
  if (duration === null || timescale === 0) return null;
  return duration / timescale;
}

// ---------------------------------------------------------------------------
// Service rules.
// ---------------------------------------------------------------------------

const H264_CODECS = new Set(["avc1", "avc3"]);
/**
 * Video the service accepts but does not play as it is: the transcoder (ffmpeg) decodes it and
 * makes the H.264 variants the stream lists (docs/renditions.md). By sample entry fourcc.
 */
const TRANSCODED_CODECS: Record<string, string> = {
  hvc1: "HEVC",
  hev1: "HEVC",
  vp09: "VP9",
  av01: "AV1",
  apco: "ProRes",
  apcs: "ProRes",
  apcn: "ProRes",
  apch: "ProRes",
  ap4h: "ProRes",
  ap4x: "ProRes",
};
/** MPEG-4 Audio (0x40) and MPEG-2 AAC Main/LC/SSR (0x66-0x68). */
const AAC_OBJECT_TYPES = new Set([0x40, 0x66, 0x67, 0x68]);
const MAX_LONG_SIDE = 1920;
const MAX_SHORT_SIDE = 1080;

/** Whether a source with this video plays only once transcoded (an accepted codec, not H.264). */
export function needsTranscoding(videoCodec: string | null): boolean {
  return videoCodec !== null && Object.hasOwn(TRANSCODED_CODECS, videoCodec);
}

/** "HEVC (hvc1)": how a transcoded codec is named in messages. */
export function transcodedCodecName(videoCodec: string): string {
  return `${TRANSCODED_CODECS[videoCodec] ?? "video"} (${displayCodec(videoCodec)})`;
}

/**
 * Returns null when the media meets the service's rules, else a user-facing reason.
 * `transcodes`: whether this deployment has a transcoder (else only H.264 plays).
 */
export function checkMediaRequirements(info: MediaInfo, transcodes = true): string | null {
  if (info.videoCodec === null) return "no video track";
  const codecs = codecRefusal(info.videoCodec, info.audioCodec, transcodes);
  if (codecs !== null) return codecs;
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
export function codecRefusal(
  videoCodec: string | null,
  audioCodec: string | null,
  transcodes = true,
): string | null {
  if (videoCodec !== null && !H264_CODECS.has(videoCodec) && !needsTranscoding(videoCodec))
    return `video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got ${displayCodec(videoCodec)}`;
  if (audioCodec !== null && !isAac(audioCodec))
    return `audio codec must be AAC, got ${displayCodec(audioCodec)}`;
  // Waiting for a transcoder that is not there would never end: said now.
  if (!transcodes && needsTranscoding(videoCodec))
    return `${transcodedCodecName(videoCodec!)} video plays only once transcoded, and this deployment has no transcoder: upload H.264 (avc1) video`;
  return null;
}
