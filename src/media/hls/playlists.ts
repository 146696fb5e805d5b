/**
 * HLS playlists (RFC 8216, version 7 for fMP4) and a DASH MPD over the same CMAF segments.
 * Every URI is relative: the playlists sit beside their segments under a versioned path.
 */
import { bitrates, type HlsIndex } from "./segments";

export const SEGMENT_EXTENSION = "m4s";

const codecsOf = (index: HlsIndex) =>
  [index.video.codec, ...(index.audio ? [index.audio.codec] : [])].join(",");

/** A subtitle rendition of the stream: a WebVTT file the publisher hosts, in one language. */
export interface SubtitleRendition {
  language: string;
  /** Unique within the stream (RFC 8216 §4.3.4.1: NAME is unique in its group). */
  name: string;
  url: string;
}

const SUBTITLE_GROUP = "subs";
/** HLS takes WebVTT subtitles only; other formats (SRT, TTML) stay in the feed files. */
const WEBVTT_PATH = /\.(vtt|webvtt)$/i;

function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The subtitle renditions of a video's `subtitles` (a list of {language: URL}), in their order:
 * the WebVTT ones, named by their language ("English", "English (2)" for a second one).
 */
export function subtitleRenditions(
  subtitles: readonly Record<string, string>[],
): SubtitleRendition[] {
  const renditions: SubtitleRendition[] = [];
  const seen = new Map<string, number>();
  for (const entry of subtitles) {
    for (const [language, raw] of Object.entries(entry)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        continue;
      }
      if (!WEBVTT_PATH.test(url.pathname)) continue;
      const base = languageName(language);
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      renditions.push({ language, name: count === 1 ? base : `${base} (${count})`, url: url.href });
    }
  }
  return renditions;
}

export const subtitlePlaylistName = (n: number) => `subtitles-${n}.m3u8`;

/** The multivariant (master) playlist: one variant, the stored file as it is, and its subtitles. */
export function masterPlaylist(
  index: HlsIndex,
  subtitles: readonly SubtitleRendition[] = [],
): string {
  const { peak, average } = bitrates(index);
  const attributes = [
    `BANDWIDTH=${peak}`,
    `AVERAGE-BANDWIDTH=${average}`,
    `CODECS="${codecsOf(index)}"`,
    `RESOLUTION=${index.video.width}x${index.video.height}`,
    ...(subtitles.length ? [`SUBTITLES="${SUBTITLE_GROUP}"`] : []),
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
    `#EXT-X-STREAM-INF:${attributes.join(",")}`,
    "video.m3u8",
    "",
  ].join("\n");
}

/** A subtitle rendition's media playlist: the whole WebVTT file as one segment of the video's length. */
export function subtitlePlaylist(index: HlsIndex, subtitle: SubtitleRendition): string {
  const duration = index.durationSeconds;
  return [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(duration))}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    `#EXTINF:${duration.toFixed(3)},`,
    subtitle.url,
    "#EXT-X-ENDLIST",
    "",
  ].join("\n");
}

/** The media playlist: every segment, VOD, with the init segment as its map. */
export function mediaPlaylist(index: HlsIndex): string {
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
    '#EXT-X-MAP:URI="init.mp4"',
  ];
  index.segments.forEach((s, i) =>
    lines.push(`#EXTINF:${s.duration.toFixed(3)},`, `${i}.${SEGMENT_EXTENSION}`),
  );
  lines.push("#EXT-X-ENDLIST", "");
  return lines.join("\n");
}

/** A DASH MPD (ISO/IEC 23009-1, on-demand profile with a SegmentTimeline) over the same segments. */
export function dashManifest(index: HlsIndex): string {
  const { peak } = bitrates(index);
  const ts = index.video.timescale;
  const timeline = index.segments
    .map((s) => `<S t="${s.video.decodeTime}" d="${Math.round(s.duration * ts)}"/>`)
    .join("");
  const iso = (seconds: number) => `PT${seconds.toFixed(3)}S`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="${iso(index.durationSeconds)}" minBufferTime="${iso(index.targetSeconds)}">`,
    `<Period id="0" start="PT0S">`,
    `<AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1">`,
    `<Representation id="0" bandwidth="${peak}" codecs="${codecsOf(index)}" width="${index.video.width}" height="${index.video.height}">`,
    `<SegmentTemplate timescale="${ts}" initialization="init.mp4" media="$Number$.${SEGMENT_EXTENSION}" startNumber="0">`,
    `<SegmentTimeline>${timeline}</SegmentTimeline>`,
    `</SegmentTemplate>`,
    `</Representation>`,
    `</AdaptationSet>`,
    `</Period>`,
    `</MPD>`,
    "",
  ].join("\n");
}
