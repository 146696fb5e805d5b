// How long a stream file may be kept, by players, shared caches and the edge cache
// (middleware/cache-policies.ts): init and segments for good, as the version in their URL names
// the file; playlists and the manifest change under a version only with the video's record,
// a subtitle file with the publisher's, and a removal must reach players soon: 300 s.
import { type StreamFile, streamBody } from "../../shared/stream-files";

const IMMUTABLE = { maxAge: 31_536_000, cacheControl: "public, max-age=31536000, immutable" };
const REVALIDATED = { maxAge: 300, cacheControl: "public, max-age=300" };

/** How long `file` may be kept; a name that is no stream file (answered 400) like a playlist. */
export function streamCaching(file: StreamFile | null): { maxAge: number; cacheControl: string } {
  return file !== null && streamBody(file) === "media" ? IMMUTABLE : REVALIDATED;
}
