// Writing ISO BMFF boxes (the fMP4 the HLS packager answers, and the sample entries it
// rewraps): big-endian integers, boxes with a 32-bit size, full boxes.
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
