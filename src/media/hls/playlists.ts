/**
 * HLS playlists (RFC 8216, version 7 for fMP4) and a DASH MPD over the same CMAF segments.
 * Every URI is relative: the playlists sit beside their segments under a versioned path.
 */
import { bitrates, type HlsIndex } from "./segments";
import type { TrackKind } from "./tracks";

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
/** The n-th WebVTT file as the service serves it (read from the publisher's host). */
export const subtitleFileName = (n: number) => `subtitles-${n}.vtt`;

/** A transcoded rung the master playlist lists beside the source (domain/renditions.ts). */
export interface VariantRendition {
  /** `r360`: its files are `r360-video.m3u8`, `r360-init.mp4`, `r360-<n>.m4s`. */
  name: string;
  width: number;
  height: number;
  peakBitrate: number;
  averageBitrate: number;
  codecs: string;
}

/** Frames per second of the video (every rung keeps the source's frames' timing). */
export function frameRate(index: HlsIndex): number {
  let frames = 0;
  for (const s of index.segments) frames += s.video.count;
  return index.durationSeconds > 0 ? frames / index.durationSeconds : 0;
}

export const renditionPlaylistName = (name: string) => `${name}-video.m3u8`;

/**
 * The multivariant (master) playlist: the stored file as it is (the top variant), then each
 * ready rendition, highest first, and the subtitles.
 */
/**
 * Whether the source's own video is a variant of its stream: H.264 only. Another codec (HEVC,
 * VP9, AV1, ProRes: accepted to be transcoded) is listed only through its transcoded rungs.
 */
export const sourcePlays = (index: Pick<HlsIndex, "video">) => /^avc[13]\./.test(index.video.codec);

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

/** The DASH files of a track: its init segment and its media segments, `$Number$` from 0. */
export const dashInitName = (kind: TrackKind) => `${kind}-init.mp4`;
export const dashSegmentName = (kind: TrackKind, n: number | "$Number$") =>
  `${kind}-${n}.${SEGMENT_EXTENSION}`;

/**
 * A SegmentTimeline: runs of equal durations become one `S` with a repeat count `r`, so the
 * manifest grows with the number of distinct runs, not of segments (a video with a keyframe
 * at a fixed interval has one or two `S` whatever its length).
 */
export function segmentTimeline(durations: Iterable<number>): string {
  const out: string[] = [];
  let first = true;
  let current = -1;
  let repeats = 0;
  const flush = () => {
    if (current < 0) return;
    out.push(`<S ${first ? 't="0" ' : ""}d="${current}"${repeats ? ` r="${repeats}"` : ""}/>`);
    first = false;
  };
  for (const d of durations) {
    if (d === current) repeats++;
    else {
      flush();
      current = d;
      repeats = 0;
    }
  }
  flush();
  return `<SegmentTimeline>${out.join("")}</SegmentTimeline>`;
}

/** Each segment's video duration in the video's timescale (decode time to the next segment). */
function* videoDurations(index: HlsIndex): Generator<number> {
  const end = Math.round(index.durationSeconds * index.video.timescale);
  for (let i = 0; i < index.segments.length; i++)
    yield (index.segments[i + 1]?.video.decodeTime ?? end) - index.segments[i]!.video.decodeTime;
}

/**
 * A DASH MPD (ISO/IEC 23009-1, live profile: SegmentTemplate and SegmentTimeline, static) with
 * one AdaptationSet per media component, as DASH-IF's interoperability guidelines ask: video
 * and audio each have their own init segment and media segments (the same samples as the HLS
 * segments, one track each). Audio segment n holds the audio frames that start within video
 * segment n, so both sets share the video's timeline; an audio segment starts at most one
 * audio frame after the time the timeline gives it.
 */
export function dashManifest(
  index: HlsIndex,
  renditions: readonly { variant: VariantRendition; index: HlsIndex }[] = [],
): string {
  const { peak, average } = bitrates(index);
  const timeline = segmentTimeline(videoDurations(index));
  const template = (kind: TrackKind) =>
    `<SegmentTemplate timescale="${index.video.timescale}" initialization="${dashInitName(kind)}" media="${dashSegmentName(kind, "$Number$")}" startNumber="0">${timeline}</SegmentTemplate>`;
  // A rendition's timeline is the source's up to a frame: its own SegmentTemplate.
  const rung = ({ variant: r, index: ri }: { variant: VariantRendition; index: HlsIndex }) =>
    `<Representation id="${r.name}" bandwidth="${r.peakBitrate}" codecs="${ri.video.codec}" width="${r.width}" height="${r.height}"><SegmentTemplate timescale="${ri.video.timescale}" initialization="${r.name}-${dashInitName("video")}" media="${r.name}-${dashSegmentName("video", "$Number$")}" startNumber="0">${segmentTimeline(videoDurations(ri))}</SegmentTemplate></Representation>`;
  const iso = (seconds: number) => `PT${seconds.toFixed(3)}S`;
  const v = index.video;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="${iso(index.durationSeconds)}" minBufferTime="${iso(index.targetSeconds)}">`,
    `<Period id="0" start="PT0S">`,
    `<AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1" maxWidth="${v.width}" maxHeight="${v.height}">`,
    template("video"),
    ...(sourcePlays(index)
      ? [
          `<Representation id="video" bandwidth="${peak}" codecs="${v.codec}" width="${v.width}" height="${v.height}"/>`,
        ]
      : []),
    ...renditions.map(rung),
    `</AdaptationSet>`,
  ];
  const a = index.audio;
  if (a)
    // The muxed stream's average bounds the audio's (the index keeps bytes per segment, both tracks).
    lines.push(
      `<AdaptationSet id="1" contentType="audio" mimeType="audio/mp4" lang="und" segmentAlignment="true" startWithSAP="1">`,
      template("audio"),
      `<Representation id="audio" bandwidth="${average}" codecs="${a.codec}" audioSamplingRate="${a.sampleRate}">`,
      `<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="${a.channels}"/>`,
      `</Representation>`,
      `</AdaptationSet>`,
    );
  lines.push(`</Period>`, `</MPD>`, "");
  return lines.join("\n");
}
