// HLS (and DASH) of every published video, packaged from the stored file: no transcoding. The
// costly part, reading the file's sample tables, is done once per file version (when E2
// publishes it, or on the first request) and stored beside the media as an index; playlists
// read only the index, a segment reads its records from the sample table and its samples'
// byte ranges from the file (media/hls/packager.ts). docs/api.md#streaming has the URLs.
import type { Config } from "../config";
import { catalogChanged } from "./catalog-changed";
import type { Deps } from "./deps";
import { findContentByKeyAnyOrg, setStreamError } from "../db/content";
import { servableContentId } from "./files";
import type { Db } from "../db/client";
import type { Content } from "../db/schema";
import { MediaProbeError } from "../media/bmff/reader";
import { initSegment } from "../media/hls/fmp4";
import { packageSegment } from "../media/hls/packager";
import {
  dashManifest,
  masterPlaylist,
  mediaPlaylist,
  sourcePlays,
  subtitlePlaylist,
  subtitleRenditions,
  type SubtitleRendition,
} from "../media/hls/playlists";
import { sha256Hex } from "../shared/crypto";
import { isolateNow, isolateStore } from "../shared/isolate-memory";
import {
  buildIndex,
  INDEX_FORMAT,
  MAX_SEGMENTS,
  type HlsIndex,
  type SegmentPart,
} from "../media/hls/segments";
import { PackagingBudgetExceeded, readTracks, type TrackKind } from "../media/hls/tracks";
import {
  contentIdOfEarlierRevision,
  contentIdOfHlsVersion,
  HLS_REVISION,
  hlsKeys,
  hlsVersion,
} from "../storage/layout";
import { readWebVtt, WebVttError } from "../media/webvtt";
import { outboundRefusal } from "./outbound-urls";
import { renditionsOf } from "../db/renditions";
import { concatReader, type MediaPart } from "../media/renditions/assemble";
import type { VariantRendition } from "../media/hls/playlists";
import { renditionKeys } from "../storage/layout";

export { HLS_VERSION_PATTERN } from "../storage/layout";
import { r2RangeReader } from "../storage/objects";

/** What packaging a file needs (E2 hands its Deps). */
export interface PackagingDeps {
  bucket: R2Bucket;
  config: Pick<Config, "hlsSegmentSeconds">;
}

/** What answering a stream request needs (all of a request's: it may change the catalog). */
export interface StreamingDeps extends Deps {
  nowMs: number;
}

/** What is stored: the index and the file it describes, or why the file has no stream. */
export type StoredIndex =
  | (HlsIndex & { mediaKey: string })
  | { format: typeof INDEX_FORMAT; unstreamable: string };

/** A file that cannot be streamed (its MP4 still plays): the reason is the answer's message. */
export class NoStream extends Error {}

/** A publisher's subtitle file the service could not pass on: the reason is the answer's message. */
export class SubtitleUnavailable extends Error {}

/**
 * Indexes read in this isolate (a playlist and its segments ask for the same one in a row): at
 * most 64, and at most two of the largest indexes the packager makes in all, so that a few very
 * long files cannot fill the isolate's memory. Counted at an estimate of 150 bytes a segment; an
 * index key names its file's version, so an entry never goes stale.
 */
const SEGMENT_BYTES = 150;
const INDEX_BYTES = 512;
const indexBytes = (index: StoredIndex) =>
  INDEX_BYTES + SEGMENT_BYTES * ("segments" in index ? index.segments.length : 0);
const indexes = isolateStore<StoredIndex>({
  name: "stream indexes",
  bytes: 2 * (INDEX_BYTES + SEGMENT_BYTES * MAX_SEGMENTS),
  maxEntries: 64,
  maxAgeMs: Infinity,
  sizeOf: indexBytes,
});

function remember(key: string, index: StoredIndex): StoredIndex {
  indexes.set(key, index, Infinity, isolateNow());
  return index;
}

type Packaged = Pick<Content, "id" | "contentKey" | "mediaKey">;

/** A stored index: from this isolate, else from R2; null when none is stored yet. */
async function storedIndex(bucket: R2Bucket, key: string): Promise<StoredIndex | null> {
  const cached = indexes.get(key, isolateNow());
  if (cached) return cached;
  const stored = await bucket.get(key);
  return stored ? remember(key, await stored.json<StoredIndex>()) : null;
}

/** The content's index: stored, or built from its file now (and stored). */
export async function ensureIndex(deps: PackagingDeps, content: Packaged): Promise<StoredIndex> {
  const key = hlsKeys(content.contentKey, content.id).index;
  return (await storedIndex(deps.bucket, key)) ?? remember(key, await buildAndStore(deps, content));
}

/** What packaging a completed upload found (E2): a fault of the file, or its stream (or why none). */
export type UploadPackaging = { refused: string } | { streamError: string | null };

/**
 * E2 packages the file before it publishes it, with the checks every later request would make:
 * a file the packager finds faulty (samples past the file, counts it cannot hold) is refused
 * with the reason; one over the packager's budget is published without a stream.
 */
export async function packageUpload(
  deps: PackagingDeps,
  content: Packaged,
): Promise<UploadPackaging> {
  try {
    const index = remember(
      hlsKeys(content.contentKey, content.id).index,
      await buildAndStore(deps, content, true),
    );
    return { streamError: "unstreamable" in index ? index.unstreamable : null };
  } catch (err) {
    if (err instanceof MediaProbeError) return { refused: err.message };
    throw err;
  }
}

/** Why packaging failed for good (stored, so it is not tried again), or null for a passing failure. */
function unstreamableReason(err: unknown): string | null {
  if (err instanceof MediaProbeError || err instanceof PackagingBudgetExceeded) return err.message;
  // A bug on an odd file (an index past an array's end): the file will not package any better.
  if (err instanceof RangeError) return "the file could not be packaged";
  return null;
}

/**
 * Builds and stores the content's index; a file that cannot be packaged gets a stored marker
 * instead, so its stream requests read that small object and never package again. With
 * `refuseFaults` (E2), a fault of the file is thrown rather than stored.
 */
async function buildAndStore(
  deps: PackagingDeps,
  content: Packaged,
  refuseFaults = false,
): Promise<StoredIndex> {
  const keys = hlsKeys(content.contentKey, content.id);
  const head = await deps.bucket.head(content.mediaKey);
  if (!head) throw new NoStream("the video file is missing");
  let index: StoredIndex;
  try {
    const tracks = await readTracks(
      r2RangeReader(deps.bucket, content.mediaKey, head.size),
      head.size,
    );
    const built = buildIndex(tracks, deps.config.hlsSegmentSeconds);
    // The table first: a stored index always has its table.
    await deps.bucket.put(keys.samples, built.sampleTable, {
      httpMetadata: { contentType: "application/octet-stream" },
    });
    index = { ...built.index, mediaKey: content.mediaKey };
  } catch (err) {
    const reason = unstreamableReason(err);
    if (reason === null || (refuseFaults && err instanceof MediaProbeError)) throw err;
    index = { format: INDEX_FORMAT, unstreamable: reason };
  }
  await deps.bucket.put(keys.index, JSON.stringify(index), {
    httpMetadata: { contentType: "application/json" },
  });
  return index;
}

type Streamable = HlsIndex & { mediaKey: string };

/** Index keys of unstreamable files whose record this isolate has seen marked. */
const recordChecked = isolateStore<true>({
  name: "unstreamable files marked",
  bytes: 10_000 * 128,
  maxEntries: 10_000,
  maxAgeMs: Infinity,
  sizeOf: () => 128,
});

/**
 * Once per file: its record (and the feeds listing it) stops offering the stream. For a file
 * published before E2 packaged, found when its stream is first asked for.
 */
async function markUnstreamable(deps: StreamingDeps, content: Content, reason: string) {
  recordChecked.set(hlsKeys(content.contentKey, content.id).index, true, Infinity, isolateNow());
  if (content.streamError !== null) return;
  const marked = await setStreamError(deps.db, content, reason, deps.now);
  await catalogChanged(deps, content.organizationId, {
    kind: "videos",
    versions: [content, marked],
  });
}

/**
 * Whether a stream URL's version names the content served under its key now. Asked before the
 * edge cache: a key deleted and created again (by any organization) names another row, and the
 * entries cached under the old row's URLs must not be served (issue 34 §2).
 */
export async function servesStreamVersion(
  db: Db,
  contentKey: string,
  version: string,
  nowMs: number,
): Promise<boolean> {
  const contentId = contentIdOfHlsVersion(version);
  return contentId !== null && contentId === (await servableContentId(db, contentKey, nowMs));
}

/**
 * A playlist URL of an earlier packager revision whose content is still the one served under
 * its key: the current version to send the player to (feed files, caches and players keep the
 * URLs of the revision they saw). Segments are not moved: their bytes differ between revisions,
 * and a player that reloads its playlist gets segments of one revision.
 */
export async function movedStreamVersion(
  db: Db,
  contentKey: string,
  version: string,
  file: string,
  nowMs: number,
): Promise<string | null> {
  if (!/\.(m3u8|mpd)$/.test(file)) return null;
  const contentId = contentIdOfEarlierRevision(version);
  if (contentId === null || contentId !== (await servableContentId(db, contentKey, nowMs)))
    return null;
  return hlsVersion(contentId);
}

/** The content id a stream version names, if it is that of the content served under the key now. */
async function servedVersion(
  deps: StreamingDeps,
  contentKey: string,
  version: string,
): Promise<number> {
  if (!(await servesStreamVersion(deps.db, contentKey, version, deps.nowMs)))
    throw new NoStream(`no stream version ${version}`);
  return contentIdOfHlsVersion(version)!;
}

/**
 * The index a stream URL names and where its sample table is; NoStream unless the version is
 * that of the content served under the key now (the same isolate-cached answer as the media's).
 */
async function indexForVersion(
  deps: StreamingDeps,
  contentKey: string,
  version: string,
): Promise<{ index: Streamable; samplesKey: string; contentId: number }> {
  const contentId = await servedVersion(deps, contentKey, version);
  const keys = hlsKeys(contentKey, contentId);
  let index = await storedIndex(deps.bucket, keys.index);
  if (!index) {
    // Not packaged yet: a file published before E2 packaged.
    const content = await findContentByKeyAnyOrg(deps.db, contentKey);
    if (!content || content.id !== contentId) throw new NoStream(`no stream version ${version}`);
    index = await ensureIndex(deps, content);
    if ("unstreamable" in index) await markUnstreamable(deps, content, index.unstreamable);
  } else if ("unstreamable" in index && !recordChecked.get(keys.index, isolateNow())) {
    // A marker stored before records knew of it: the record may still offer the stream.
    const content = await findContentByKeyAnyOrg(deps.db, contentKey);
    if (content?.id === contentId) await markUnstreamable(deps, content, index.unstreamable);
  }
  if ("unstreamable" in index)
    throw new NoStream(`this video has no HLS stream: ${index.unstreamable}`);
  return { index, samplesKey: keys.samples, contentId };
}

/**
 * A file of a stream: a playlist or manifest (text), or the init or a media segment (bytes).
 * `variant` is set when the text depends on the video's record (its subtitles) as well as on
 * its file: it goes into the entity tag.
 */
export type StreamFile =
  | { kind: "text"; contentType: string; body: string; variant?: string }
  | { kind: "bytes"; bytes: Uint8Array };

const HLS_TYPE = "application/vnd.apple.mpegurl";
const SUBTITLE_PLAYLIST = /^subtitles-(\d+)\.m3u8$/;
const SUBTITLE_FILE = /^subtitles-(\d+)\.vtt$/;

/**
 * Whether a stream file shows the video's record (its subtitles, its ready renditions) besides
 * its file.
 */
export const dependsOnRecord = (file: string) =>
  file === "master.m3u8" ||
  file === "manifest.mpd" ||
  SUBTITLE_PLAYLIST.test(file) ||
  SUBTITLE_FILE.test(file);

/** A rendition's file: `r360-video.m3u8`, `r360-init.mp4`, `r360-4.m4s`, `r360-video-4.m4s`. */
const RENDITION_FILE = /^(r\d{2,4})-(.+)$/;

/** The ready rungs the master playlist and the manifest list (their rows in D1), highest first. */
async function readyVariants(deps: StreamingDeps, contentId: number): Promise<VariantRendition[]> {
  const rows = await renditionsOf(deps.db, contentId);
  return rows.flatMap((r) =>
    r.status === "ready" && r.peakBitrate !== null && r.averageBitrate !== null && r.codecs
      ? [
          {
            name: r.name,
            width: r.width,
            height: r.height,
            peakBitrate: r.peakBitrate,
            averageBitrate: r.averageBitrate,
            codecs: r.codecs,
          },
        ]
      : [],
  );
}

type RungIndex = HlsIndex & { media: MediaPart[] };

/** A ready rung's stored index (isolate-cached like the source's); NoStream when there is none. */
async function rungIndex(
  deps: StreamingDeps,
  contentKey: string,
  contentId: number,
  name: string,
): Promise<RungIndex> {
  const stored = await storedIndex(deps.bucket, renditionKeys(contentKey, contentId, name).index);
  if (!stored || !("media" in stored)) throw new NoStream(`no rendition ${name} of this video`);
  return stored as RungIndex;
}

/** A rendition's playlist, init segment or media segment (HLS muxed, or DASH video-only). */
async function renditionFile(
  deps: StreamingDeps,
  contentKey: string,
  contentId: number,
  name: string,
  file: string,
): Promise<StreamFile> {
  const index = await rungIndex(deps, contentKey, contentId, name);
  if (file === "video.m3u8")
    return { kind: "text", contentType: HLS_TYPE, body: mediaPlaylist(index, `${name}-`) };
  const part: SegmentPart = file.startsWith("video-") ? "video" : "muxed";
  const rest = part === "video" ? file.slice("video-".length) : file;
  if (rest === "init.mp4") {
    const tracks = index.audio && part === "muxed" ? [index.video, index.audio] : [index.video];
    return { kind: "bytes", bytes: initSegment(tracks) };
  }
  const n = Number(rest.split(".")[0]);
  if (!/^\d+\.m4s$/.test(rest) || n >= index.segments.length)
    throw new NoStream(`no segment ${name}-${file}: this stream has ${index.segments.length}`);
  const keys = renditionKeys(contentKey, contentId, name);
  const table = r2RangeReader(deps.bucket, keys.samples, Number.MAX_SAFE_INTEGER);
  const media = concatReader(index.media, (key, offset, length) =>
    r2RangeReader(deps.bucket, key, Number.MAX_SAFE_INTEGER)(offset, length),
  );
  return { kind: "bytes", bytes: await packageSegment(index, n, table, media, part) };
}

const noSuchSubtitles = (file: string, renditions: readonly SubtitleRendition[]) =>
  new NoStream(`no subtitles ${file}: this video has ${renditions.length} WebVTT subtitle file(s)`);

/**
 * The n-th WebVTT file of the video's record, read from the publisher's host (bounded:
 * media/webvtt.ts). It needs no stream: a video whose file cannot be packaged still has it.
 */
async function subtitleFile(
  deps: StreamingDeps,
  contentKey: string,
  version: string,
  file: string,
  n: number,
): Promise<StreamFile> {
  const contentId = await servedVersion(deps, contentKey, version);
  const { renditions } = await subtitlesOf(deps, contentKey, contentId);
  const rendition = renditions[n];
  if (!rendition) throw noSuchSubtitles(file, renditions);
  let body: string;
  try {
    // Fetched by the service: the webhooks' address policy, at each redirect too.
    body = await readWebVtt(rendition.url, (url) => outboundRefusal(url, deps.config, deps.nowMs));
  } catch (err) {
    if (err instanceof WebVttError) throw new SubtitleUnavailable(`${file}: ${err.message}`);
    throw err;
  }
  // The publisher may change the file under its URL: the entity tag follows its text.
  const variant = (await sha256Hex(body)).slice(0, 16);
  return { kind: "text", contentType: "text/vtt", body, variant };
}

/** The video's subtitle renditions (from its record, not its file) and their fingerprint. */
async function subtitlesOf(
  deps: StreamingDeps,
  contentKey: string,
  contentId: number,
): Promise<{ renditions: SubtitleRendition[]; variant: string }> {
  const content = await findContentByKeyAnyOrg(deps.db, contentKey);
  const renditions = content?.id === contentId ? subtitleRenditions(content.subtitles) : [];
  return {
    renditions,
    variant: renditions.length ? (await sha256Hex(JSON.stringify(renditions))).slice(0, 16) : "",
  };
}

/** `file` of the stream a URL names (the caller has checked the content may be served). */
export async function streamFile(
  deps: StreamingDeps,
  contentKey: string,
  version: string,
  file: string,
): Promise<StreamFile> {
  const vtt = SUBTITLE_FILE.exec(file);
  if (vtt) return subtitleFile(deps, contentKey, version, file, Number(vtt[1]));
  const { index, samplesKey, contentId } = await indexForVersion(deps, contentKey, version);
  // A source that is not H.264 is not served: its transcoded variants and its audio are.
  if (!sourcePlays(index) && SOURCE_VIDEO_FILE.test(file))
    throw new NoStream(
      `no ${file}: this video's source (${index.video.codec}) plays only through its transcoded variants`,
    );
  if (file === "video.m3u8")
    return { kind: "text", contentType: HLS_TYPE, body: mediaPlaylist(index) };
  const rendition = RENDITION_FILE.exec(file);
  if (rendition) return renditionFile(deps, contentKey, contentId, rendition[1]!, rendition[2]!);
  if (file === "manifest.mpd") {
    const variants = await readyVariants(deps, contentId);
    const rungs = await Promise.all(
      variants.map(async (variant) => ({
        variant,
        index: await rungIndex(deps, contentKey, contentId, variant.name),
      })),
    );
    return {
      kind: "text",
      contentType: "application/dash+xml",
      body: dashManifest(index, rungs),
      variant: variants.map((v) => v.name).join("."),
    };
  }
  const subtitle = SUBTITLE_PLAYLIST.exec(file);
  if (dependsOnRecord(file)) {
    const { renditions, variant } = await subtitlesOf(deps, contentKey, contentId);
    if (!subtitle) {
      const variants = await readyVariants(deps, contentId);
      return {
        kind: "text",
        contentType: HLS_TYPE,
        body: masterPlaylist(index, renditions, variants),
        variant: [variant, ...variants.map((v) => v.name)].filter(Boolean).join("."),
      };
    }
    const n = Number(subtitle[1]);
    if (!renditions[n]) throw noSuchSubtitles(file, renditions);
    return {
      kind: "text",
      contentType: HLS_TYPE,
      body: subtitlePlaylist(index, n),
      variant,
    };
  }
  // DASH's per-track files (video-init.mp4, audio-3.m4s) or HLS's muxed ones (init.mp4, 3.m4s).
  const named = DASH_TRACK_FILE.exec(file);
  const part: SegmentPart = (named?.[1] as TrackKind | undefined) ?? "muxed";
  if (part === "audio" && !index.audio) throw new NoStream(`no ${file}: this video has no audio`);
  const name = named ? named[2]! : file;
  if (name === "init.mp4") {
    const tracks = index.audio ? [index.video, index.audio] : [index.video];
    return {
      kind: "bytes",
      bytes: initSegment(part === "muxed" ? tracks : tracks.filter((t) => t.kind === part)),
    };
  }
  const n = Number(name.split(".")[0]);
  if (!Number.isInteger(n) || n >= index.segments.length)
    throw new NoStream(`no segment ${file}: this stream has ${index.segments.length}`);
  const table = r2RangeReader(deps.bucket, samplesKey, Number.MAX_SAFE_INTEGER);
  const media = r2RangeReader(deps.bucket, index.mediaKey, Number.MAX_SAFE_INTEGER);
  return { kind: "bytes", bytes: await packageSegment(index, n, table, media, part) };
}

/** The source's files that hold its video: HLS's playlist and muxed files, DASH's video track. */
const SOURCE_VIDEO_FILE = /^(video\.m3u8|init\.mp4|\d+\.m4s|video-(init\.mp4|\d+\.m4s))$/;

/** A DASH file of one track: `video-init.mp4`, `audio-12.m4s` (playlists.ts names them). */
const DASH_TRACK_FILE = /^(video|audio)-(init\.mp4|\d+\.m4s)$/;

/**
 * How long a stream file may be kept: init and segments for good (the version names the file);
 * playlists change under a version only with the video's subtitles, a subtitle file with the
 * publisher's, and a removal must reach players soon: 300 s.
 */
export function streamCaching(file: string): { maxAge: number; cacheControl: string } {
  return /\.(m3u8|mpd|vtt)$/.test(file)
    ? { maxAge: 300, cacheControl: "public, max-age=300" }
    : { maxAge: 31_536_000, cacheControl: "public, max-age=31536000, immutable" };
}

/**
 * The stored objects of a content's stream (deleted with the content), those an earlier
 * packager revision stored included.
 */
export const streamObjectKeys = (content: { id: number; contentKey: string }) =>
  Array.from({ length: HLS_REVISION }, (_, r) =>
    Object.values(hlsKeys(content.contentKey, content.id, r + 1)),
  ).flat();
