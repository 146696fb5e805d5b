// A live stream's ladder as viewers see it (docs/live.md "A ladder while live"): the
// multivariant playlist (master.m3u8: the source's live playlist, then each rung that exists),
// each rung's media playlist (r<h>.m3u8, the source's window with the rung's files) and the
// names of the rung's files, each named after the source file it was made from
// (`r360-u12.m4s` from `u12.m4s`, its init segment `r360-u0.mp4` from `u0.mp4`).
import { parseBoxHeader } from "../../bmff/reader";
import { concat } from "../../bmff/writer";

export const LIVE_RUNG_PLAYLIST = /^(r\d{2,4})\.m3u8$/;
/** A rung's file: its name, then the source's stored file it was made from. */
export const LIVE_RUNG_FILE = /^r\d{2,4}-u(0|[1-9]\d{0,8})\.(ts|m4s|mp4)$/;

export const rungPlaylistName = (rung: string) => `${rung}.m3u8`;
export const rungFileName = (rung: string, sourceFile: string) => `${rung}-${sourceFile}`;

export interface MasterVariant {
  uri: string;
  /** Peak bit rate over the window (bits a second), audio included. */
  bandwidth: number;
  averageBandwidth: number;
  width: number | null;
  height: number | null;
}

/** The multivariant playlist: the variants in the order given (the source first). */
export function renderLiveMaster(variants: readonly MasterVariant[]): string {
  const out = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const v of variants) {
    const attributes = [
      `BANDWIDTH=${Math.max(1, Math.round(v.bandwidth))}`,
      `AVERAGE-BANDWIDTH=${Math.max(1, Math.round(v.averageBandwidth))}`,
    ];
    if (v.width && v.height) attributes.push(`RESOLUTION=${v.width}x${v.height}`);
    out.push(`#EXT-X-STREAM-INF:${attributes.join(",")}`, v.uri);
  }
  return `${out.join("\n")}\n`;
}

/** The peak and average bit rate of segments (bytes, seconds). */
export function bitRates(segments: readonly { bytes: number; duration: number }[]) {
  let peak = 0;
  let bytes = 0;
  let seconds = 0;
  for (const s of segments) {
    if (s.duration > 0) peak = Math.max(peak, (s.bytes * 8) / s.duration);
    bytes += s.bytes;
    seconds += s.duration;
  }
  return { peak, average: seconds > 0 ? (bytes * 8) / seconds : 0 };
}

/**
 * A transcoded fragmented MP4 as a rung's two files: its init segment (ftyp, moov) and its
 * media segment (styp, sidx, moof, mdat; the trailing mfra is dropped). Null when it has no
 * moov or no moof.
 */
export function splitFragmented(file: Uint8Array): { init: Uint8Array; media: Uint8Array } | null {
  const init: Uint8Array[] = [];
  const media: Uint8Array[] = [];
  for (let at = 0; at + 8 <= file.length; ) {
    const box = parseBoxHeader(file.subarray(at, at + 16), at, file.length);
    const whole = file.subarray(at, at + box.size);
    if (box.type === "ftyp" || box.type === "moov") init.push(whole);
    else if (["styp", "sidx", "moof", "mdat"].includes(box.type)) media.push(whole);
    at += box.size;
  }
  if (init.length < 2 || media.length < 2) return null;
  return { init: concat(init), media: concat(media) };
}
