// Live HLS (docs/live.md): the media playlist an encoder PUTs (ffmpeg's `-f hls -method PUT`,
// OBS's HLS output), read into its segments, and the playlists the service writes for viewers:
// the live window (a sliding playlist over the DVR list) and the recording (every segment, VOD).

/** Why a playlist an encoder sent is refused (HTTP 400 with this message). */
export class PlaylistError extends Error {}

/** The largest encoder playlist read (a live window of a few hundred segments is a few KB). */
export const ENCODER_PLAYLIST_MAX_BYTES = 256 * 1024;
/** The most segments an encoder playlist may list (ffmpeg keeps 5 by default: hls_list_size). */
export const ENCODER_PLAYLIST_MAX_SEGMENTS = 2000;
/** The longest segment accepted, in seconds (docs/live.md: 1–6 s recommended). */
export const SEGMENT_MAX_SECONDS = 30;

/** A file name an encoder may write: a playlist, an init segment or a media segment. */
export const INGEST_FILE_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}\.(m3u8|ts|m4s|mp4|aac)$/;
export const isPlaylistFile = (file: string) => file.endsWith(".m3u8");

export interface EncoderSegment {
  /** The segment's file name (the last component of its URI, as the encoder PUT it). */
  name: string;
  duration: number;
  /** EXT-X-DISCONTINUITY before it. */
  discontinuity: boolean;
  /** The EXT-X-MAP (init segment) file name in force for it (fMP4), else null. */
  map: string | null;
  /** EXT-X-PROGRAM-DATE-TIME of the segment (ffmpeg: `-hls_flags program_date_time`), ISO 8601. */
  programDateTime: string | null;
}

export interface EncoderPlaylist {
  mediaSequence: number;
  segments: EncoderSegment[];
  /** EXT-X-ENDLIST: the encoder ended the stream. */
  ended: boolean;
}

const fileNameOf = (uri: string) => {
  const path = uri.split(/[?#]/)[0] ?? "";
  return path.slice(path.lastIndexOf("/") + 1);
};

function segmentName(uri: string, line: number): string {
  const name = fileNameOf(uri.trim());
  if (!INGEST_FILE_PATTERN.test(name) || isPlaylistFile(name))
    throw new PlaylistError(
      `line ${line}: segment URI ${JSON.stringify(uri.slice(0, 60))} must name a .ts, .m4s, .mp4 or .aac file`,
    );
  return name;
}

/** Reads an encoder's media playlist; PlaylistError names what is wrong with it. */
export function parseEncoderPlaylist(text: string): EncoderPlaylist {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "#EXTM3U")
    throw new PlaylistError("not an HLS playlist: the first line must be #EXTM3U");
  let mediaSequence = 0;
  let ended = false;
  let map: string | null = null;
  let pendingDuration: number | null = null;
  let discontinuity = false;
  let programDateTime: string | null = null;
  const segments: EncoderSegment[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const n = i + 1;
    if (line.startsWith("#EXT-X-STREAM-INF") || line.startsWith("#EXT-X-MEDIA:"))
      throw new PlaylistError(
        "a multivariant (master) playlist: push one media playlist per stream (ffmpeg without -master_pl_name)",
      );
    if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
      mediaSequence = Number(line.slice(22));
      if (!Number.isSafeInteger(mediaSequence) || mediaSequence < 0)
        throw new PlaylistError(`line ${n}: EXT-X-MEDIA-SEQUENCE must be a non-negative integer`);
    } else if (line.startsWith("#EXTINF:")) {
      const duration = Number(line.slice(8).split(",")[0]);
      if (!Number.isFinite(duration) || duration < 0 || duration > SEGMENT_MAX_SECONDS)
        throw new PlaylistError(
          `line ${n}: EXTINF duration must be a number of seconds from 0 to ${SEGMENT_MAX_SECONDS}`,
        );
      pendingDuration = duration;
    } else if (line.startsWith("#EXT-X-MAP:")) {
      const uri = /URI="([^"]*)"/.exec(line)?.[1];
      if (!uri) throw new PlaylistError(`line ${n}: EXT-X-MAP without URI`);
      map = segmentName(uri, n);
    } else if (line === "#EXT-X-DISCONTINUITY") {
      discontinuity = true;
    } else if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) {
      const at = Date.parse(line.slice(25));
      programDateTime = Number.isNaN(at) ? null : new Date(at).toISOString();
    } else if (line === "#EXT-X-ENDLIST") {
      ended = true;
    } else if (!line.startsWith("#")) {
      if (pendingDuration === null)
        throw new PlaylistError(`line ${n}: a segment URI without #EXTINF before it`);
      segments.push({
        name: segmentName(line, n),
        duration: pendingDuration,
        discontinuity,
        map,
        programDateTime,
      });
      if (segments.length > ENCODER_PLAYLIST_MAX_SEGMENTS)
        throw new PlaylistError(
          `more than ${ENCODER_PLAYLIST_MAX_SEGMENTS} segments: keep a shorter list (ffmpeg -hls_list_size)`,
        );
      pendingDuration = null;
      discontinuity = false;
      programDateTime = null;
    }
  }
  return { mediaSequence, segments, ended };
}

/** A segment of the DVR list, as the service names it. */
export interface LiveSegment {
  /** The service's media sequence number (0 for the stream's first segment). */
  seq: number;
  /** The stored file (served beside the playlist). */
  file: string;
  duration: number;
  /** The stored init segment in force (fMP4), else null. */
  map: string | null;
  discontinuity: boolean;
  programDateTime: string | null;
  /** A rung's segment that was never made (EXT-X-GAP: players take it from another variant). */
  gap?: boolean;
}

/**
 * A viewer's playlist: the segments given (a live window, or the whole recording when `ended`),
 * `discontinuitySequence` counting the discontinuities before the first one.
 */
export function renderLivePlaylist(
  segments: readonly LiveSegment[],
  options: { ended: boolean; discontinuitySequence: number },
): string {
  const fmp4 = segments.some((s) => s.map !== null);
  // A loop, not Math.max(...durations): a spread of a long recording overflows the stack.
  let target = 1;
  for (const s of segments) target = Math.max(target, Math.ceil(s.duration));
  const out = [
    "#EXTM3U",
    `#EXT-X-VERSION:${fmp4 ? 7 : 3}`,
    `#EXT-X-TARGETDURATION:${target}`,
    `#EXT-X-MEDIA-SEQUENCE:${segments[0]?.seq ?? 0}`,
  ];
  if (options.discontinuitySequence > 0)
    out.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${options.discontinuitySequence}`);
  if (options.ended) out.push("#EXT-X-PLAYLIST-TYPE:VOD");
  out.push("#EXT-X-INDEPENDENT-SEGMENTS");
  let map: string | null = null;
  segments.forEach((s, i) => {
    if (i > 0 && s.discontinuity) out.push("#EXT-X-DISCONTINUITY");
    if (s.map !== null && s.map !== map) out.push(`#EXT-X-MAP:URI="${s.map}"`);
    map = s.map;
    if (s.programDateTime) out.push(`#EXT-X-PROGRAM-DATE-TIME:${s.programDateTime}`);
    if (s.gap) out.push("#EXT-X-GAP");
    out.push(`#EXTINF:${s.duration.toFixed(3)},`, s.file);
  });
  if (options.ended) out.push("#EXT-X-ENDLIST");
  return `${out.join("\n")}\n`;
}

/** The most segments a live window holds, whatever their durations (6 h of 1-second segments). */
export const WINDOW_MAX_SEGMENTS = 21_600;
/** The least a segment counts for in the window: EXTINF:0 segments cannot grow it without bound. */
export const WINDOW_SEGMENT_FLOOR_SECONDS = 1;

/**
 * The start of the DVR window in `segments` (the DVR list's last ones, in order): the last
 * segments whose durations, each counted as at least WINDOW_SEGMENT_FLOOR_SECONDS, add up to at
 * most `seconds`, at least three and at most WINDOW_MAX_SEGMENTS.
 */
export function dvrWindow<T extends { duration: number }>(segments: readonly T[], seconds: number) {
  let total = 0;
  let first = segments.length;
  while (first > 0 && segments.length - first < WINDOW_MAX_SEGMENTS) {
    const next = total + Math.max(segments[first - 1]!.duration, WINDOW_SEGMENT_FLOOR_SECONDS);
    if (next > seconds && segments.length - first >= 3) break;
    total = next;
    first--;
  }
  return first;
}
