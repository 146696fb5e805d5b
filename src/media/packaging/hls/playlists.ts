/**
 * HLS playlists (RFC 8216, version 7 for fMP4) over the CMAF segments the packager cuts: the
 * multivariant (master) playlist, each variant's media playlist, and the subtitle playlists.
 * Every URI is relative: the playlists sit beside their segments under a versioned path.
 */
import { bitrates, type HlsIndex } from "../segments";
import type { SubtitleRendition } from "../subtitles";
import { frameRate, sourcePlays, type VariantRendition } from "../variants";

export const SEGMENT_EXTENSION = "m4s";

const codecsOf = (index: HlsIndex) =>
  [index.video.codec, ...(index.audio ? [index.audio.codec] : [])].join(",");

const SUBTITLE_GROUP = "subs";

export const subtitlePlaylistName = (n: number) => `subtitles-${n}.m3u8`;
/** The n-th WebVTT file as the service serves it (read from the publisher's host). */
export const subtitleFileName = (n: number) => `subtitles-${n}.vtt`;

export const renditionPlaylistName = (name: string) => `${name}-video.m3u8`;

/**
 * The multivariant (master) playlist: the stored file as it is (the top variant), then each
 * ready rendition, highest first, and the subtitles.
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
  const media = subtitles.map(
    (s, n) =>
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="${SUBTITLE_GROUP}",NAME="${s.name}",LANGUAGE="${s.language}",DEFAULT=NO,AUTOSELECT=YES,URI="${subtitlePlaylistName(n)}"`,
  );
  return [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    "#EXT-X-INDEPENDENT-SEGMENTS",
    ...media,
    // A source that is not H.264 is never listed: its transcoded variants are what plays.
    ...(sourcePlays(index)
      ? variant(peak, average, codecsOf(index), index.video.width, index.video.height, "video.m3u8")
      : []),
    ...renditions.flatMap((r) =>
      variant(
        r.peakBitrate,
        r.averageBitrate,
        r.codecs,
        r.width,
        r.height,
        renditionPlaylistName(r.name),
      ),
    ),
    "",
  ].join("\n");
}

/**
 * The n-th subtitle rendition's media playlist: the whole WebVTT file as one segment of the
 * video's length, from the service's origin (players need no CORS from the publisher's host).
 */
export function subtitlePlaylist(index: HlsIndex, n: number): string {
  const duration = index.durationSeconds;
  return [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(duration))}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    `#EXTINF:${duration.toFixed(3)},`,
    subtitleFileName(n),
    "#EXT-X-ENDLIST",
    "",
  ].join("\n");
}

/** The media playlist: every segment, VOD, with the init segment as its map; a rendition's files carry its `prefix`. */
export function mediaPlaylist(index: HlsIndex, prefix = ""): string {
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
    `#EXT-X-MAP:URI="${prefix}init.mp4"`,
  ];
  index.segments.forEach((s, i) =>
    lines.push(`#EXTINF:${s.duration.toFixed(3)},`, `${prefix}${i}.${SEGMENT_EXTENSION}`),
  );
  lines.push("#EXT-X-ENDLIST", "");
  return lines.join("\n");
}
