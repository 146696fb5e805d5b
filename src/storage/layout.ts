// Where things live in the R2 bucket, and the public URLs that serve them.
export const mediaKey = (contentKey: string, suffix: string) => `${contentKey}/${contentKey}${suffix}`;
export const thumbnailKey = (contentKey: string) => `${contentKey}/thumbnail.jpg`;

/** The media object is served by the worker at /media/<key> (Range, HEAD, ETag). */
export const mediaUrl = (baseUrl: string, key: string) => `${baseUrl}/media/${key}`;
/**
 * The service's thumbnail URL: the stored thumbnail, or a default image until one is stored.
 * Versioned by the stored thumbnail (`?v=`), like media by their key: a replaced thumbnail has a
 * new URL, so players and CDNs may keep each one for good.
 */
export const serviceThumbnailUrl = (staticUrl: string, contentKey: string, version: number) =>
  `${staticUrl}/thumbnails/${contentKey}.jpg${version > 0 ? `?v=${version}` : ""}`;

/** Whether a URL is this service's thumbnail URL of the content, whatever its version. */
export const isServiceThumbnailUrl = (url: string, staticUrl: string, contentKey: string) =>
  url.split("?")[0] === serviceThumbnailUrl(staticUrl, contentKey, 0);

/** Published feed files: the R2 key is also the public path (docs/design.md). */
export const feedFileKeys = (feedId: string) => ({
  legacy: `${feedId}-feed.json`,
  videos: `v2/feeds/${feedId}/videos.json`,
  metadata: `v2/feeds/${feedId}/metadata.json`,
});
export const orgFeedListKey = (syncCode: string) => `v2/orgs/${syncCode}/feeds.json`;
