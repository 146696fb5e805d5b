// Published feed files in R2 (the key is the public path, DESIGN.md). A file is rewritten only
// when its content changed, judged by a SHA-256 of the content without `generated_at`, so an
// unchanged feed keeps its ETag and caches stay warm.
import { sha256Hex } from "../shared/crypto";
import { feedFileKeys, orgFeedListKey } from "./layout";

export const FEED_FILE_HTTP_METADATA = { contentType: "application/json; charset=utf-8" };

/**
 * Writes `content` plus generated_at at `key` unless its hash equals `previousHash` (undefined:
 * read the hash kept in the object's metadata). Returns the content hash and whether it wrote.
 */
export async function writeFeedFile(bucket: R2Bucket, key: string, content: object, generatedAt: string, previousHash?: string) {
  const hash = await sha256Hex(JSON.stringify(content));
  const previous = previousHash ?? (await bucket.head(key))?.customMetadata?.contentHash;
  if (hash === previous) return { hash, written: false };
  await bucket.put(key, JSON.stringify({ ...content, generated_at: generatedAt }), {
    httpMetadata: FEED_FILE_HTTP_METADATA,
    customMetadata: { contentHash: hash },
  });
  return { hash, written: true };
}

export async function removeFeedFiles(bucket: R2Bucket, feedIds: string[]): Promise<void> {
  const keys = feedIds.flatMap((id) => Object.values(feedFileKeys(id)));
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

export async function removeOrgFeedList(bucket: R2Bucket, syncCode: string): Promise<void> {
  await bucket.delete(orgFeedListKey(syncCode));
}

export { feedFileKeys, orgFeedListKey };
