/**
 * HLS playlists (RFC 8216, version 7 for fMP4) over the CMAF segments the packager cuts: the
 * multivariant (master) playlist, each variant's media playlist, and the subtitle playlists.
 * Every URI is relative: the playlists sit beside their segments under a versioned path.
 */

import { numberedNames, streamFileName } from "../../../shared/stream-files";
import { bitrates } from "../bitrates";
import type { HlsIndex } from "../segments";
import type { SubtitleRendition } from "../subtitles";
import { frameRate, inStartOrder, sourcePlays, type VariantRendition } from "../variants";

const codecsOf = (index: HlsIndex) =>
  [index.video.codec, ...(index.audio ? [index.audio.codec] : [])].join(",");

const SUBTITLE_GROUP = "subs";

/**
 * Apple's accessibility characteristics of a subtitle rendition (HLS authoring specification):
 * captions transcribe the dialogue and describe sounds (SDH); automatic ones transcribe only.
 */
function characteristics(s: SubtitleRendition): string | null {
  if (s.kind !== "captions") return null;
  const dialogue = "public.accessibility.transcribes-spoken-dialog";
  return s.automatic ? dialogue : `${dialogue},public.accessibility.describes-music-and-sound`;
}

/** A quoted-string attribute holds no double quote, CR or LF (RFC 8216 §4.2). */
const quotedString = (text: string) => text.replace(/["\r\n]/g, "'");

/**
 * The multivariant (master) playlist: the subtitles, then the variants, the stored file as it
 * is (the top one) and each ready rendition, in start order (variants.ts: the one to start on
 * first, then highest first).
 */
export function masterPlaylist(
  index: HlsIndex,
  subtitles: readonly SubtitleRendition[] = [],
  renditions: readonly VariantRendition[] = [],
): string {
  const { peak, average } = bitrates(index);
  const fps = frameRate(index);
  const variant = (
    bandwidth: number,
    averageBandwidth: number,
    codecs: string,
    width: number,
    height: number,
    uri: string,
  ) => [
    `#EXT-X-STREAM-INF:${[
      `BANDWIDTH=${bandwidth}`,
      `AVERAGE-BANDWIDTH=${averageBandwidth}`,
      `CODECS="${codecs}"`,
      `RESOLUTION=${width}x${height}`,
      ...(fps > 0 ? [`FRAME-RATE=${fps.toFixed(3)}`] : []),
      ...(subtitles.length ? [`SUBTITLES="${SUBTITLE_GROUP}"`] : []),
    ].join(",")}`,
    uri,
  ];
  const media = subtitles.map((s) =>
    [
      "#EXT-X-MEDIA:TYPE=SUBTITLES",
      `GROUP-ID="${SUBTITLE_GROUP}"`,
      `NAME="${quotedString(s.name)}"`,
      `LANGUAGE="${s.language}"`,
      // RFC 8216 §4.3.4.1: a DEFAULT=YES rendition is AUTOSELECT=YES.
      `DEFAULT=${s.default ? "YES" : "NO"}`,
      "AUTOSELECT=YES",
      ...(characteristics(s) ? [`CHARACTERISTICS="${characteristics(s)}"`] : []),
      `URI="${streamFileName(s.playlist)}"`,
    ].join(","),
  );
  // A source that is not H.264 is never listed: its transcoded variants are what plays.
  const variants = [
    ...(sourcePlays(index)
      ? [
          {
            bandwidth: peak,
            lines: variant(
              peak,
              average,
              codecsOf(index),
              index.video.width,
              index.video.height,
              streamFileName({ kind: "media-playlist", rung: null }),
            ),
          },
        ]
      : []),
    ...renditions.map((r) => ({
      bandwidth: r.peakBitrate,
      lines: variant(
        r.peakBitrate,
        r.averageBitrate,
        r.codecs,
        r.width,
        r.height,
        streamFileName({ kind: "media-playlist", rung: r.name }),
      ),
    })),
  ];
  return [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    "#EXT-X-INDEPENDENT-SEGMENTS",
    ...media,
    ...inStartOrder(variants, (v) => v.bandwidth).flatMap((v) => v.lines),
    "",
  ].join("\n");
}

/**
 * A subtitle rendition's media playlist: the whole WebVTT file (`file`: a kept track or the
 * publisher's n-th) as one segment of the video's length, from the service's origin (players
 * need no CORS from the publisher's host).
 */
export function subtitlePlaylist(index: HlsIndex, file: SubtitleRendition["file"]): string {
  const duration = index.durationSeconds;
  return [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(duration))}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    `#EXTINF:${duration.toFixed(3)},`,
    streamFileName(file),
    "#EXT-X-ENDLIST",
    "",
  ].join("\n");
}

/** A variant's media playlist (the source's, or rung `rung`'s): every segment, VOD, with the init segment as its map. */
export function mediaPlaylist(index: HlsIndex, rung: string | null = null): string {
  // EXT-X-TARGETDURATION: every EXTINF rounded to the nearest integer must not exceed it.
  // A loop, not Math.max(...durations): spreading 200,000 segments overflows the stack.
  let target = 1;
  for (const s of index.segments) target = Math.max(target, Math.round(s.duration));
  const lines = [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    `#EXT-X-TARGETDURATION:${target}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    "#EXT-X-INDEPENDENT-SEGMENTS",
    `#EXT-X-MAP:URI="${streamFileName({ kind: "init", rung, track: "muxed" })}"`,
  ];
  const segment = numberedNames({ kind: "segment", rung, track: "muxed" });
  index.segments.forEach((s, i) => lines.push(`#EXTINF:${s.duration.toFixed(3)},`, segment(i)));
  lines.push("#EXT-X-ENDLIST", "");
  return lines.join("\n");
}
