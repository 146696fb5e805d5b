import type { AppRouteHandler } from "../../http/router";
import { indexForVersion, NoStream, streamSegment } from "../../domain/streaming";
import { initSegment } from "../../media/hls/fmp4";
import { dashManifest, masterPlaylist, mediaPlaylist } from "../../media/hls/playlists";
import { ApiError } from "../../http/errors";
import { etagMatches } from "../../shared/etag";
import { notFound } from "../../shared/errors";
import { parseRange, resolveRange } from "../../storage/objects";
import type * as routes from "./streams.routes";

/** Playlists never change under a version either, but a removal must reach players soon. */
export const PLAYLIST_CACHE_CONTROL = "public, max-age=300";
export const SEGMENT_CACHE_CONTROL = "public, max-age=31536000, immutable";

const TEXT_TYPES: Record<string, string> = {
  "master.m3u8": "application/vnd.apple.mpegurl",
  "video.m3u8": "application/vnd.apple.mpegurl",
  "manifest.mpd": "application/dash+xml",
};

export const stream: AppRouteHandler<typeof routes.stream> = async (c) => {
  const { contentKey, version, file } = c.req.valid("param");
  const deps = { db: c.get("db"), bucket: c.env.MEDIA, config: c.get("config") };
  const index = await indexForVersion(deps, contentKey, version).catch((err: unknown) => {
    throw err instanceof NoStream ? notFound(err.message) : err;
  });
  // The bytes under a version never change: its name is a strong validator.
  const etag = `"${version}.${file}"`;
  const headers: Record<string, string> = { "Access-Control-Allow-Origin": "*", ETag: etag };
  const textType = TEXT_TYPES[file];
  if (textType) {
    Object.assign(headers, { "Content-Type": `${textType}; charset=utf-8`, "Cache-Control": PLAYLIST_CACHE_CONTROL });
    if (etagMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
    const body = file === "master.m3u8" ? masterPlaylist(index) : file === "video.m3u8" ? mediaPlaylist(index) : dashManifest(index);
    return new Response(body, { status: 200, headers });
  }

  Object.assign(headers, { "Content-Type": "video/mp4", "Cache-Control": SEGMENT_CACHE_CONTROL, "Accept-Ranges": "bytes" });
  if (etagMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  let bytes: Uint8Array;
  if (file === "init.mp4") {
    bytes = initSegment(index.audio ? [index.video, index.audio] : [index.video]);
  } else {
    const n = Number(file.split(".")[0]);
    if (n >= index.segments.length) throw notFound(`no segment ${n}: this stream has ${index.segments.length}`);
    bytes = await streamSegment(deps, contentKey, version, index, n);
  }
  const range = parseRange(c.req.header("Range") ?? null);
  if (!range) return new Response(bytes, { status: 200, headers });
  const part = resolveRange(range, bytes.length);
  if (!part) throw new ApiError(416, `Range: not satisfiable; the file has ${bytes.length} bytes`, { "Content-Range": `bytes */${bytes.length}` });
  headers["Content-Range"] = `bytes ${part.offset}-${part.offset + part.length - 1}/${bytes.length}`;
  return new Response(bytes.subarray(part.offset, part.offset + part.length), { status: 206, headers });
};
