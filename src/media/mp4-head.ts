// What the first bytes of an upload tell before the rest arrives. A faststart file (moov before
// mdat, as phones and `-movflags +faststart` write) has its sample descriptions, and so its
// codecs, in its first part; a file whose moov is at the end has only ftyp and the start of
// mdat there, so its codecs are known only when E2 reads the whole file. Anything odd here is
// left to E2's probe (mp4-probe.ts), which says what is wrong with the file.
import { audioCodecString, parseHdlr, parseStsd, trakBoxes } from "./bmff/boxes";
import {
  type BoxHeaderFields,
  Bytes,
  boxHeaderFields,
  children,
  MediaProbeError,
} from "./bmff/reader";
import { codecRefusal } from "./mp4-probe";

export { HEAD_SCAN_MAX_BYTES } from "./bmff/limits";

/**
 * What the head says: `more` (the moov is not complete yet; `needed` bytes would do),
 * `unknown` (the codecs cannot be known from the start of this file), or its codecs.
 */
export type HeadVerdict =
  | { kind: "more"; needed: number }
  | { kind: "unknown" }
  | { kind: "codecs"; video: string | null; audio: string | null };

/** Top-level boxes that may come before the moov of a faststart file. */
const BEFORE_MOOV = new Set(["ftyp", "free", "skip", "wide", "uuid", "pdin", "junk"]);

export function scanHead(head: Uint8Array): HeadVerdict {
  let offset = 0;
  for (let count = 0; count < 16; count++) {
    if (head.byteLength - offset < 16) return { kind: "more", needed: offset + 16 };
    let header: BoxHeaderFields;
    try {
      header = boxHeaderFields(head.subarray(offset, offset + 16), offset);
    } catch (err) {
      if (err instanceof MediaProbeError) return { kind: "unknown" };
      throw err;
    }
    const { type, headerSize, size } = header;
    // A box to the end of the file (size 0), or one smaller than its header: not a faststart head.
    if (size === null || size < headerSize) return { kind: "unknown" };
    if (type === "moov") {
      if (head.byteLength < offset + size) return { kind: "more", needed: offset + size };
      return codecsOf(head.subarray(offset + headerSize, offset + size));
    }
    // mdat first (moov at the end), or not an MP4 start.
    if (!BEFORE_MOOV.has(type)) return { kind: "unknown" };
    offset += size;
  }
  return { kind: "unknown" };
}

function codecsOf(moov: Uint8Array): HeadVerdict {
  try {
    const b = new Bytes(moov);
    let video: string | null = null;
    let audio: string | null = null;
    for (const trak of children(b, 0, b.length).filter((x) => x.type === "trak")) {
      const boxes = trakBoxes(b, trak);
      if (!boxes.mdia) continue;
      const handler = boxes.hdlr ? parseHdlr(b, boxes.hdlr) : "";
      const stsd = boxes.tables.find((x) => x.type === "stsd");
      const entry = stsd ? parseStsd(b, stsd) : null;
      if (!entry) continue;
      // The first track of each kind, as E2's probe takes them.
      if (handler === "vide" && video === null) video = entry.type;
      if (handler === "soun" && audio === null) audio = audioCodecString(b, entry);
    }
    return { kind: "codecs", video, audio };
  } catch {
    return { kind: "unknown" };
  }
}

/**
 * The reason a file with this head is refused now, or null (it passes, or only E2 can tell).
 * `transcodes`: whether the deployment has a transcoder (codecRefusal).
 */
export function headRefusal(verdict: HeadVerdict, transcodes = true): string | null {
  return verdict.kind === "codecs" ? codecRefusal(verdict.video, verdict.audio, transcodes) : null;
}
