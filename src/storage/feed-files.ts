// Published feed files in R2 (the key is the public path, docs/design.md). A file is rewritten only
// when its content changed, judged by a SHA-256 of the content without `generated_at`, so an
// unchanged feed keeps its ETag and caches stay warm. A file rewritten or removed is dropped from
// this location's edge cache at once (and a read of the old file that was under way does not
// put it back: the edge cache checks the object's ETag after keeping a copy); other locations
// keep their copy for at most its max-age (the Cache API is per location).
import { sha256Hex } from "../shared/crypto";
import { publicObjectCacheKey } from "../shared/edge-cache-key";
import { withField, withoutLastField } from "../shared/json-text";
import { feedFileKeys, orgFeedListKey } from "./layout";

export const FEED_FILE_HTTP_METADATA = { contentType: "application/json; charset=utf-8" };

/**
 * Writes `content` plus generated_at at `key` unless its hash equals `previousHash` (undefined:
 * read the hash kept in the object's metadata). Returns the content hash and whether it wrote.
 */
export interface FeedFileStore {
  bucket: R2Bucket;
  /** The public origin the files are served at (their edge-cache keys). */
  origin: string;
}

async function forgetEdgeCopies(store: FeedFileStore, keys: string[]): Promise<void> {
  const cache = caches.default;
  await Promise.all(keys.map((key) => cache.delete(publicObjectCacheKey(store.origin, key))));
}

/**
 * Writes a feed file unless its content is what the file holds (`json`: the content as JSON text,
 * an object without generated_at; the hash of that text is kept with the file).
 */
export async function writeFeedFile(
  store: FeedFileStore,
  key: string,
  json: string,
  generatedAt: string,
  previousHash?: string,
) {
  const { bucket } = store;
  const hash = await sha256Hex(json);
  const previous = previousHash ?? (await bucket.head(key))?.customMetadata?.contentHash;
  if (hash === previous) return { hash, written: false };
  await bucket.put(key, withField(json, "generated_at", generatedAt), {
    httpMetadata: FEED_FILE_HTTP_METADATA,
    customMetadata: { contentHash: hash },
  });
  await forgetEdgeCopies(store, [key]);
  return { hash, written: true };
}

/**
 * A feed file as written: its content without generated_at, and the hash kept with it; null
 * when there is no such file (or it does not end with generated_at).
 */
export async function readFeedFile(
  store: FeedFileStore,
  key: string,
): Promise<{ content: string; hash: string | undefined } | null> {
  const object = await store.bucket.get(key);
  if (!object) return null;
  const content = withoutLastField(await object.text(), "generated_at");
  return content === null ? null : { content, hash: object.customMetadata?.contentHash };
}

export async function removeFeedFiles(store: FeedFileStore, feedIds: string[]): Promise<void> {
  const keys = feedIds.flatMap((id) => Object.values(feedFileKeys(id)));
  for (let i = 0; i < keys.length; i += 1000) await store.bucket.delete(keys.slice(i, i + 1000));
  await forgetEdgeCopies(store, keys);
}

export async function removeOrgFeedList(store: FeedFileStore, syncCode: string): Promise<void> {
  await store.bucket.delete(orgFeedListKey(syncCode));
  await forgetEdgeCopies(store, [orgFeedListKey(syncCode)]);
}

export { feedFileKeys, orgFeedListKey };
