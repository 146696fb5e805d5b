// The stored index of a file version: what packaging reads once so that no stream request reads
// the file's (possibly megabytes of) sample tables again. Built when E2 publishes the file (or,
// for a file published before E2 packaged, on its first stream request), stored beside the
// media in R2 with its sample table, and kept in the isolate; a file that cannot be packaged
// gets a stored marker instead, and its record stops offering the stream. Playlists read only
// the index; a segment reads its records from the sample table and its samples' byte ranges from
// the file (media/packaging/packager.ts).
import type { Config } from "../../config";
import { findContentByKeyAnyOrg, setStreamError } from "../../db/content";
import type { Content } from "../../db/schema";
import { MediaProbeError } from "../../media/bmff/reader";
import {
  buildIndex,
  type HlsIndex,
  hasVideoBytes,
  INDEX_FORMAT,
  MAX_SEGMENTS,
  withVideoBytes,
} from "../../media/packaging/segments";
import { PackagingBudgetExceeded, readTracks } from "../../media/packaging/tracks";
import type { MediaPart } from "../../media/renditions/assemble";
import { isolateNow, isolateStore } from "../../shared/isolate-memory";
import { HLS_REVISION, hlsKeys, renditionKeys } from "../../storage/layout";
import { r2RangeReader } from "../../storage/objects";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import type { ServedStream } from "./served";

/** What packaging a file needs (E2 hands its Deps). */
export interface PackagingDeps {
  bucket: R2Bucket;
  config: Pick<Config, "hlsSegmentSeconds">;
}

/** What is stored: the index and the file it describes, or why the file has no stream. */
export type StoredIndex =
  | (HlsIndex & { mediaKey: string })
  | { format: typeof INDEX_FORMAT; unstreamable: string };

/** A file that cannot be streamed (its MP4 still plays): the reason is the answer's message. */
export class NoStream extends Error {}

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

/**
 * A stored index: from this isolate, else from R2; null when none is stored yet. An index
 * stored before its segments kept their video bytes gets them from its sample table
 * (`samplesKey`, beside it), once: it is stored again with them.
 */
async function storedIndex(
  bucket: R2Bucket,
  key: string,
  samplesKey: string,
): Promise<StoredIndex | null> {
  const cached = indexes.get(key, isolateNow());
  if (cached) return cached;
  const stored = await bucket.get(key);
  if (!stored) return null;
  const index = await stored.json<StoredIndex>();
  if ("unstreamable" in index || hasVideoBytes(index)) return remember(key, index);
  const table = await bucket.get(samplesKey);
  if (!table) throw new Error(`the sample table ${samplesKey} of a stored index is missing`);
  const upgraded = withVideoBytes(index, new Uint8Array(await table.arrayBuffer()));
  await bucket.put(key, JSON.stringify(upgraded), {
    httpMetadata: { contentType: "application/json" },
  });
  return remember(key, upgraded);
}

/** The content's index: stored, or built from its file now (and stored). */
export async function ensureIndex(deps: PackagingDeps, content: Packaged): Promise<StoredIndex> {
  const keys = hlsKeys(content.contentKey, content.id);
  return (
    (await storedIndex(deps.bucket, keys.index, keys.samples)) ??
    remember(keys.index, await buildAndStore(deps, content))
  );
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

/** The index of a streamable file, and where its file and sample table are. */
export type SourceIndex = HlsIndex & { mediaKey: string; samplesKey: string };

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
async function markUnstreamable(deps: Deps, content: Content, reason: string) {
  recordChecked.set(hlsKeys(content.contentKey, content.id).index, true, Infinity, isolateNow());
  if (content.streamError !== null) return;
  const marked = await setStreamError(deps.db, content, reason, deps.now);
  await catalogChanged(deps, content.organizationId, {
    kind: "videos",
    versions: [content, marked],
  });
}

/**
 * The source's index of a served stream version (packaged now if it was not yet); NoStream when
 * its file cannot be streamed.
 */
export async function sourceIndex(deps: Deps, stream: ServedStream): Promise<SourceIndex> {
  const { contentKey, contentId, version } = stream;
  const keys = hlsKeys(contentKey, contentId);
  let index = await storedIndex(deps.bucket, keys.index, keys.samples);
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
  return { ...index, samplesKey: keys.samples };
}

/** A ready rung's index and the stored chunks its samples are in. */
export type RungIndex = HlsIndex & { media: MediaPart[] };

/** A ready rung's stored index (isolate-cached like the source's); NoStream when there is none. */
export async function rungIndex(
  bucket: R2Bucket,
  stream: ServedStream,
  rung: string,
): Promise<RungIndex> {
  const keys = renditionKeys(stream.contentKey, stream.contentId, rung);
  const stored = await storedIndex(bucket, keys.index, keys.samples);
  if (!stored || !("media" in stored)) throw new NoStream(`no rendition ${rung} of this video`);
  return stored as RungIndex;
}

/**
 * The stored objects of a content's stream (deleted with the content), those an earlier
 * packager revision stored included.
 */
export const streamObjectKeys = (content: { id: number; contentKey: string }) =>
  Array.from({ length: HLS_REVISION }, (_, r) =>
    Object.values(hlsKeys(content.contentKey, content.id, r + 1)),
  ).flat();
