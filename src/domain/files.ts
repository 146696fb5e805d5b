// Public files and where they are stored: media and thumbnails (player traffic), and the
// published feed files, whose R2 key is their public path (DESIGN.md).
import { DEFAULT_THUMBNAIL_JPEG } from "../media/default-thumbnail";
import { sha256Hex } from "../shared/crypto";
import { feedFileKeys, orgFeedListKey, thumbnailKey } from "../storage/layout";

export const mediaObjectKey = (contentKey: string, file: string) => `${contentKey}/${file}`;
export const thumbnailObjectKey = (contentKey: string) => thumbnailKey(contentKey);
export const feedListObjectKey = (syncCode: string) => orgFeedListKey(syncCode);
export const feedObjectKey = (feedId: string, file: "videos" | "metadata" | "legacy") => feedFileKeys(feedId)[file];

let defaultEtag: Promise<string> | undefined;

/** The image served until a thumbnail is uploaded (1920x1080 JPEG), with its ETag. */
export async function defaultThumbnail(): Promise<{ bytes: Uint8Array; etag: string }> {
  defaultEtag ??= sha256Hex(DEFAULT_THUMBNAIL_JPEG).then((hex) => `"default-${hex.slice(0, 16)}"`);
  return { bytes: DEFAULT_THUMBNAIL_JPEG, etag: await defaultEtag };
}
