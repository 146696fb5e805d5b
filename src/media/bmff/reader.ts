/**
 * ISO BMFF / QuickTime reading primitives, the one place every MP4 reader of the service (the
 * probe, the fragment walk, the head scan, the HLS packager) reads boxes through: the
 * user-facing error type, bounds-checked reads inside a buffer (`Bytes`) and a cursor over one
 * box (`BoxCursor`), child-box listing, and top-level box headers. What each box holds is
 * parsed in boxes.ts; the limits on untrusted counts and sizes are in limits.ts.
 *
 * Every length in the file is untrusted: any read outside the box it belongs
 * to ends in a MediaProbeError, never a RangeError.
 */
import { MAX_CHILD_BOXES } from "./limits";

/** A problem with the uploaded file itself. The message is shown to the user. */
export class MediaProbeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MediaProbeError";
  }
}

/** A box inside a buffer: [start, end) is its payload (after the header). */
export interface Box {
  type: string;
  start: number;
  end: number;
}

/**
 * Parses consecutive boxes in [start, end). `max` stops early (used for
 * stsd, where only the first entry matters).
 */
export function children(b: Bytes, start: number, end: number, max = Infinity): Box[] {
  const boxes: Box[] = [];
  let p = start;
  const parent: Box = { type: "box", start, end };
  // Fewer than 8 bytes left is padding (QuickTime may end a list with a 4-byte zero).
  while (end - p >= 8 && boxes.length < max) {
    if (boxes.length === MAX_CHILD_BOXES)
      throw new MediaProbeError(
        `corrupt MP4/MOV file: a box holds more than ${MAX_CHILD_BOXES} boxes`,
      );
    const size32 = b.u32(p, parent);
    const type = b.fourcc(p + 4, parent);
    let headerSize = 8;
    let size: number;
    if (size32 === 1) {
      size = b.u64(p + 8, parent);
      headerSize = 16;
    } else if (size32 === 0) {
      size = end - p; // extends to the end of the parent
    } else {
      size = size32;
    }
    if (size < headerSize || size > end - p) throw corrupt(type);
    boxes.push({ type, start: p + headerSize, end: p + size });
    p += size; // size >= 8, so this always advances
  }
  return boxes;
}

/** Follows a path of container boxes, e.g. minf → stbl → stsd. */
export function descend(b: Bytes, boxes: Box[], path: string[]): Box | null {
  let current = boxes;
  let found: Box | null = null;
  for (const [i, type] of path.entries()) {
    found = current.find((x) => x.type === type) ?? null;
    if (!found) return null;
    if (i < path.length - 1) current = children(b, found.start, found.end);
  }
  return found;
}

export function corrupt(type: string): MediaProbeError {
  const name = /^[\x20-\x7e]{4}$/.test(type) ? `'${type}' box` : "box";
  return new MediaProbeError(`corrupt MP4/MOV file: invalid ${name} in the metadata`);
}

/** Bounds-checked big-endian reads; every read names the box it must stay inside. */
export class Bytes {
  private readonly view: DataView;
  readonly length: number;

  constructor(private readonly bytes: Uint8Array) {
    this.view = viewOf(bytes);
    this.length = bytes.length;
  }

  /** A copy of [start, end), which must lie inside the buffer. */
  slice(start: number, end: number): Uint8Array {
    if (start < 0 || end > this.length || end < start) throw corrupt("box");
    return this.bytes.slice(start, end);
  }

  private check(offset: number, n: number, box: Box): void {
    if (offset < box.start || offset + n > box.end || offset + n > this.length)
      throw corrupt(box.type);
  }

  u8(offset: number, box: Box): number {
    this.check(offset, 1, box);
    return this.view.getUint8(offset);
  }

  u16(offset: number, box: Box): number {
    this.check(offset, 2, box);
    return this.view.getUint16(offset);
  }

  u32(offset: number, box: Box): number {
    this.check(offset, 4, box);
    return this.view.getUint32(offset);
  }

  u64(offset: number, box: Box): number {
    this.check(offset, 8, box);
    return readUint64(this.view, offset);
  }

  fourcc(offset: number, box: Box): string {
    this.check(offset, 4, box);
    return fourcc(this.bytes, offset);
  }
}

/**
 * Reads the fields of one box in order: each read advances the cursor and must stay inside the
 * box (else a MediaProbeError naming it).
 */
export class BoxCursor {
  constructor(
    private readonly b: Bytes,
    readonly box: Box,
    public at = box.start,
  ) {}

  /** Bytes left in the box after the cursor. */
  get remaining(): number {
    return this.box.end - this.at;
  }

  u8(): number {
    const v = this.b.u8(this.at, this.box);
    this.at += 1;
    return v;
  }

  u16(): number {
    const v = this.b.u16(this.at, this.box);
    this.at += 2;
    return v;
  }

  u32(): number {
    const v = this.b.u32(this.at, this.box);
    this.at += 4;
    return v;
  }

  /** A 32-bit two's complement value (composition offsets, trun data_offset). */
  i32(): number {
    return this.u32() | 0;
  }

  u64(): number {
    const v = this.b.u64(this.at, this.box);
    this.at += 8;
    return v;
  }

  /** 64-bit in a version 1 box, else 32-bit (times and offsets of mdhd, tfdt, elst, tfra…). */
  uVersioned(version: number): number {
    return version === 1 ? this.u64() : this.u32();
  }

  /** An unsigned integer of 1 to 4 bytes (tfra's variable-size fields). */
  uint(size: number): number {
    const v = readUintN(this.b, this.at, size, this.box);
    this.at += size;
    return v;
  }

  fourcc(): string {
    const v = this.b.fourcc(this.at, this.box);
    this.at += 4;
    return v;
  }

  skip(n: number): this {
    if (n > this.box.end - this.at) throw corrupt(this.box.type);
    this.at += n;
    return this;
  }

  /** A FullBox header: version (8 bits) and flags (24 bits). */
  fullBoxHeader(): { version: number; flags: number } {
    const word = this.u32();
    return { version: word >>> 24, flags: word & 0xffffff };
  }
}

// ---------------------------------------------------------------------------
// Small helpers shared by both levels.
// ---------------------------------------------------------------------------

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** 64-bit big-endian as a JS number; values beyond 2^53 cannot be real sizes/durations here. */
export function readUint64(view: DataView, offset: number): number {
  const hi = view.getUint32(offset);
  const lo = view.getUint32(offset + 4);
  if (hi >= 0x200000) throw new MediaProbeError("corrupt MP4/MOV file: 64-bit value out of range");
  return hi * 0x1_0000_0000 + lo;
}

export function fourcc(bytes: Uint8Array, offset: number): string {
  let s = "";
  for (let i = offset; i < offset + 4; i++) s += String.fromCharCode(bytes[i] ?? 0);
  return s;
}

export function isPrintableFourcc(bytes: Uint8Array, offset: number): boolean {
  for (let i = offset; i < offset + 4; i++) {
    const c = bytes[i];
    if (c === undefined || c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** Reads an unsigned big-endian integer of 1 to 4 bytes (tfra's variable-size fields). */
export function readUintN(b: Bytes, offset: number, size: number, box: Box): number {
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + b.u8(offset + i, box);
  return value;
}

// ---------------------------------------------------------------------------
// Top-level box headers (read from the file, 8 or 16 bytes each).
// ---------------------------------------------------------------------------

export interface BoxHeader {
  type: string;
  /** 8, or 16 with a 64-bit largesize. */
  headerSize: number;
  /** Whole box, header included. */
  size: number;
}

/** A box header's fields; `size` is null when the box runs to the end of the file (size 0). */
export interface BoxHeaderFields {
  type: string;
  /** 8, or 16 with a 64-bit largesize. */
  headerSize: number;
  /** Whole box, header included (not yet checked against the header's own size). */
  size: number | null;
}

/**
 * Reads the fields of the box header at file offset `offset`, given the 8 to 16 bytes read
 * there, without knowing the file's size (the head of an upload still arriving). Size 1 means
 * a 64-bit size follows the type; size 0 means the box runs to the end of the file.
 */
export function boxHeaderFields(header: Uint8Array, offset: number): BoxHeaderFields {
  const type = fourcc(header, 4);
  if (header.length < 8 || !isPrintableFourcc(header, 4)) {
    throw new MediaProbeError(`corrupt MP4/MOV file: invalid box header at byte ${offset}`);
  }
  const view = viewOf(header);
  const size32 = view.getUint32(0);
  if (size32 === 1) {
    // 64-bit "largesize" follows the type (used for mdat > 4 GiB).
    if (header.length < 16) throw truncated(type);
    return { type, headerSize: 16, size: readUint64(view, 8) };
  }
  return { type, headerSize: 8, size: size32 === 0 ? null : size32 };
}

/**
 * Parses the header of the box at file offset `offset`, given the 8 to 16 bytes read there: its
 * fields (boxHeaderFields), checked against the file's size.
 */
export function parseBoxHeader(header: Uint8Array, offset: number, fileSize: number): BoxHeader {
  const fields = boxHeaderFields(header, offset);
  const { type, headerSize } = fields;
  // Size 0: the box extends to the end of the file (only allowed for the last box).
  const size = fields.size ?? fileSize - offset;
  if (size < headerSize) {
    throw new MediaProbeError(
      `corrupt MP4/MOV file: invalid size for '${type}' box at byte ${offset}`,
    );
  }
  if (size > fileSize - offset) throw truncated(type);
  return { type, headerSize, size };
}

export function truncated(type: string): MediaProbeError {
  return new MediaProbeError(`file is truncated: '${type}' box extends past the end of the file`);
}
