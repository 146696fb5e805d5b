// The file names of live streams: what an encoder may write, and what viewers are served.
import { LIVE_RUNG_FILE, LIVE_RUNG_PLAYLIST } from "../../media/packaging/hls/live-ladder";
import { INGEST_FILE_PATTERN } from "../../media/packaging/hls/live-playlist";
import {
  contentIdOfHlsVersion,
  LIVE_MASTER,
  LIVE_PLAYLIST,
  liveObjectKey,
  RECORDING_PLAYLIST,
} from "../../storage/layout";

export const INGEST_FILE_NAME = INGEST_FILE_PATTERN;
// The encoder's files, and a low-latency stream's parts (u<n>p<k>.m4s).
const SOURCE_FILE_NAME =
  /^(index\.m3u8|recording\.m3u8|u(0|[1-9]\d{0,8})\.(ts|m4s|mp4|aac)|u(0|[1-9]\d{0,8})p(0|[1-9]\d{0,5})\.m4s)$/;
/** A viewer's file: the source's playlists and files, the master and the rungs' (ladder.ts). */
export const LIVE_FILE_NAME = new RegExp(
  [SOURCE_FILE_NAME, /^master\.m3u8$/ /* LIVE_MASTER */, LIVE_RUNG_PLAYLIST, LIVE_RUNG_FILE]
    .map((r) => `(?:${r.source})`)
    .join("|"),
);
export { LIVE_MASTER, LIVE_PLAYLIST, RECORDING_PLAYLIST };

/** The playlists the stream's Durable Object writes from its ladder: the master and the rungs'. */
export const isLadderPlaylist = (file: string) =>
  file === LIVE_MASTER || LIVE_RUNG_PLAYLIST.test(file);

/** The stored object of a viewer's file (recording and segments), under the version's content row. */
export function liveFileKey(contentKey: string, version: string, file: string): string | null {
  const contentId = contentIdOfHlsVersion(version);
  return contentId === null ? null : liveObjectKey(contentKey, contentId, file);
}

export const liveContentId = (version: string) => contentIdOfHlsVersion(version);

/**
 * How long a viewer's file may be kept: the live playlists (source, master, rungs) 1 s
 * (players see a new segment within a segment's duration; the edge answers the rest), the
 * recording 300 s, segments for good.
 */
export function liveCaching(file: string): { maxAge: number; cacheControl: string } {
  if (file === LIVE_PLAYLIST || isLadderPlaylist(file))
    return { maxAge: 1, cacheControl: "public, max-age=1" };
  if (file === RECORDING_PLAYLIST) return { maxAge: 300, cacheControl: "public, max-age=300" };
  return { maxAge: 31_536_000, cacheControl: "public, max-age=31536000, immutable" };
}

/** The type a stored live file is served with: MPEG-TS, else MP4 (fMP4 segments, init segments). */
export const liveContentType = (name: string) =>
  name.endsWith(".ts") ? "video/mp2t" : "video/mp4";
