// Where things live in the R2 bucket, and the public URLs that serve them.
export const mediaKey = (contentKey: string, suffix: string) => `${contentKey}/${contentKey}${suffix}`;
export const thumbnailKey = (contentKey: string) => `${contentKey}/thumbnail.jpg`;

/** The media object is served by the worker at /media/<key> (Range, HEAD, ETag). */
export const mediaUrl = (baseUrl: string, key: string) => `${baseUrl}/media/${key}`;
/** The service's thumbnail URL: the uploaded thumbnail, or a default image until one is uploaded. */
export const serviceThumbnailUrl = (staticUrl: string, contentKey: string) =>
  `${staticUrl}/thumbnails/${contentKey}.jpg`;

/** Published feed files: the R2 key is also the public path (DESIGN.md). */
export const feedFileKeys = (feedId: string) => ({
  legacy: `${feedId}-feed.json`,
  videos: `v2/feeds/${feedId}/videos.json`,
  metadata: `v2/feeds/${feedId}/metadata.json`,
});
export const orgFeedListKey = (syncCode: string) => `v2/orgs/${syncCode}/feeds.json`;
