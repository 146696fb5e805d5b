// Which stream a URL may be served: its version (/hls/{contentKey}/{version}/…) names the content
// row and the packager's revision it was made for. Asked once per request, before the edge cache
// (middleware/servable.ts), whose entries are keyed by URL: a key deleted and created again, by
// any organization, names another row, and the entries cached under the old row's URLs must not
// be served. The answer (a ServedStream) is what the stream's files are then read for.
import type { Db } from "../../db/client";
import { type StreamFile, streamBody } from "../../shared/stream-files";
import {
  contentIdOfEarlierRevision,
  contentIdOfHlsVersion,
  hlsVersion,
} from "../../storage/layout";
import { servableContentId } from "../files";

export { HLS_VERSION_PATTERN } from "../../storage/layout";

declare const checked: unique symbol;

/**
 * A stream version found to name the content served under its key now; only checkStreamVersion
 * makes one, so a function that takes it needs not ask again.
 */
export interface ServedStream {
  readonly contentKey: string;
  readonly version: string;
  readonly contentId: number;
  readonly [checked]: true;
}

/**
 * What a stream URL's version is now: served; moved (a playlist URL of an earlier packager
 * revision whose content is still the one served under its key: the current version to send
 * the player to, as feed files, caches and players keep the URLs they saw); or neither (404).
 * Segments are not moved: their bytes differ between revisions, and a player that reloads its
 * playlist gets segments of one revision.
 */
export type StreamVersionCheck = { served: ServedStream } | { movedTo: string } | null;

/** Whether a request for the file under an earlier revision is sent to the current one. */
const movesWithItsVersion = (file: StreamFile) =>
  streamBody(file) === "playlist" || streamBody(file) === "manifest";

/**
 * Checks a stream URL's version against the content served under its key (the media gate's
 * lookup, kept in the isolate); `file` is what the URL names (null: no stream file name).
 */
export async function checkStreamVersion(
  db: Db,
  contentKey: string,
  version: string,
  file: StreamFile | null,
  nowMs: number,
): Promise<StreamVersionCheck> {
  const current = contentIdOfHlsVersion(version);
  const earlier = current === null ? contentIdOfEarlierRevision(version) : null;
  if (current === null && earlier === null) return null;
  const servedId = await servableContentId(db, contentKey, nowMs);
  if (current !== null && current === servedId)
    return { served: { contentKey, version, contentId: current } as ServedStream };
  if (earlier !== null && earlier === servedId && file !== null && movesWithItsVersion(file))
    return { movedTo: hlsVersion(earlier) };
  return null;
}
