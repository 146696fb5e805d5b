// Writing ISO BMFF boxes, beside the reader (reader.ts, boxes.ts): the fMP4 the packager answers
// and the sample entries it rewraps, the frame clips, the tests' synthesiser. Big-endian
// integers, boxes with a 32-bit size, full boxes, and the boxes the service writes by their
// named fields; the flag bits are the reader's (boxes.ts), named once.
import {
  SAMPLE_DEPENDS_ON_NONE,
  SAMPLE_DEPENDS_ON_OTHERS,
  SAMPLE_IS_NON_SYNC,
  TFHD_DEFAULT_BASE_IS_MOOF,
  TKHD_ENABLED,
  TKHD_IN_MOVIE,
} from "./boxes";

const enc = new TextEncoder();

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A box: 32-bit size, type, payload. */
export function box(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(payload);
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, 8 + body.length);
  head.set(enc.encode(type), 4);
  return concat([head, body]);
}

/** A FullBox: version and 24-bit flags, then the payload. */
export function fullBox(
  type: string,
  version: number,
  flags: number,
  ...payload: Uint8Array[]
): Uint8Array {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xffffff)), ...payload);
}

export function u32(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(4 * i, v >>> 0));
  return out;
}

export function u16(...values: number[]): Uint8Array {
  const out = new Uint8Array(2 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint16(2 * i, v));
  return out;
}

export function u64(value: number): Uint8Array {
  return u32(Math.floor(value / 2 ** 32), value % 2 ** 32);
}

// ---------------------------------------------------------------------------
// Boxes by their fields (ISO/IEC 14496-12): what the init segment, the media segments and the
// frame clips write, each field named once.
// ---------------------------------------------------------------------------

const zeros = (n: number) => new Uint8Array(n);
/** The identity matrix of mvhd and tkhd. */
const MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);
/** ISO 639-2 "und", packed as mdhd's language. */
const LANGUAGE_UND = 0x55c4;

/** mvhd (8.2.2), version 0: rate 1.0, volume 1.0. */
export function mvhd(f: { timescale: number; duration: number; nextTrackId: number }): Uint8Array {
  return fullBox(
    "mvhd",
    0,
    0,
    u32(0, 0, f.timescale, f.duration), // creation_time, modification_time, …
    u32(0x00010000), // rate
    u16(0x0100), // volume
    zeros(10),
    MATRIX,
    zeros(24), // pre_defined
    u32(f.nextTrackId),
  );
}

/** tkhd (8.3.2), version 0, enabled and in the movie. An audio track is in alternate group 1. */
export function tkhd(f: {
  trackId: number;
  duration: number;
  audio: boolean;
  width: number;
  height: number;
}): Uint8Array {
  return fullBox(
    "tkhd",
    0,
    TKHD_ENABLED | TKHD_IN_MOVIE,
    u32(0, 0, f.trackId, 0, f.duration), // creation_time, modification_time, …, reserved, …
    zeros(8),
    u16(0, f.audio ? 1 : 0, f.audio ? 0x0100 : 0, 0), // layer, alternate_group, volume, reserved
    MATRIX,
    u32(f.width * 65536, f.height * 65536), // 16.16 fixed point
  );
}

/** edts with one elst edit (8.6.6): 64-bit fields when the media time needs them. */
export function edts(f: { segmentDuration: number; mediaTime: number }): Uint8Array {
  const wide = f.mediaTime > 0x7fffffff || f.segmentDuration > 0xffffffff;
  const entry = wide
    ? concat([u64(f.segmentDuration), u64(f.mediaTime), u16(1, 0)])
    : concat([u32(f.segmentDuration, f.mediaTime), u16(1, 0)]); // …, media_rate 1.0
  return box("edts", fullBox("elst", wide ? 1 : 0, 0, u32(1), entry));
}

/** mdhd (8.4.2), version 0, language "und". */
export function mdhd(f: { timescale: number; duration: number }): Uint8Array {
  return fullBox("mdhd", 0, 0, u32(0, 0, f.timescale, f.duration), u16(LANGUAGE_UND, 0));
}

/** hdlr (8.4.3) of a video or sound track. */
export function hdlr(handler: "vide" | "soun"): Uint8Array {
  const name = handler === "vide" ? "VideoHandler\0" : "SoundHandler\0";
  return fullBox("hdlr", 0, 0, u32(0), enc.encode(handler), zeros(12), enc.encode(name));
}

/** The media header of minf: vmhd (flags 1, as the spec requires) or smhd. */
export function mediaHeader(handler: "vide" | "soun"): Uint8Array {
  return handler === "vide" ? fullBox("vmhd", 0, 1, zeros(8)) : fullBox("smhd", 0, 0, zeros(4));
}

/** dinf with one self-contained data reference (8.7.1). */
export function dinf(): Uint8Array {
  return box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1)));
}

/** trex (8.8.3): the first sample description, and no default duration, size or flags. */
export function trex(trackId: number): Uint8Array {
  return fullBox("trex", 0, 0, u32(trackId, 1, 0, 0, 0));
}

/** tfhd (8.8.7) whose data offsets count from the moof. */
export function tfhd(trackId: number): Uint8Array {
  return fullBox("tfhd", 0, TFHD_DEFAULT_BASE_IS_MOOF, u32(trackId));
}

/** tfdt (8.8.12), version 1. */
export function tfdt(baseMediaDecodeTime: number): Uint8Array {
  return fullBox("tfdt", 1, 0, u64(baseMediaDecodeTime));
}

/** Sample flags (8.8.3.1) of a keyframe and of a frame that depends on others. */
export const SYNC_SAMPLE_FLAGS = SAMPLE_DEPENDS_ON_NONE;
export const NON_SYNC_SAMPLE_FLAGS = SAMPLE_DEPENDS_ON_OTHERS | SAMPLE_IS_NON_SYNC;
