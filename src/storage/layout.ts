// Where things live in the R2 bucket, and the public URLs that serve them.
import { streamPath } from "../shared/stream-files";

export const mediaKey = (contentKey: string, suffix: string) =>
  `${contentKey}/${contentKey}${suffix}`;
export const thumbnailKey = (contentKey: string) => `${contentKey}/thumbnail.jpg`;
/** The thumbnail the service made from a frame of the video: served when none was uploaded. */
export const frameThumbnailKey = (contentKey: string) => `${contentKey}/frame.jpg`;

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

/**
 * HLS of a content: versioned by the content row (a content key deleted and created again is
 * another row, another media file) and by the packager's revision (a change to the segments'
 * bytes gets new URLs, so segments can be cached for good).
 */
export const HLS_REVISION = 2;
export const hlsVersion = (contentId: number, revision = HLS_REVISION) =>
  `h${revision}-${contentId.toString(36)}`;
export const HLS_VERSION_PATTERN = /^h(\d{1,3})-([0-9a-z]{1,12})$/;
/** The content row a version names, if it is one of the current revision. */
export function contentIdOfHlsVersion(version: string): number | null {
  const m = HLS_VERSION_PATTERN.exec(version);
  return m && Number(m[1]) === HLS_REVISION ? parseInt(m[2]!, 36) : null;
}
/** The content row a version of an earlier packager revision names (its URLs moved on). */
export function contentIdOfEarlierRevision(version: string): number | null {
  const m = HLS_VERSION_PATTERN.exec(version);
  return m && Number(m[1]) >= 1 && Number(m[1]) < HLS_REVISION ? parseInt(m[2]!, 36) : null;
}
export const hlsUrl = (baseUrl: string, contentKey: string, contentId: number) =>
  `${baseUrl}${streamPath(contentKey, hlsVersion(contentId), { kind: "master" })}`;
/** The stored index of a version (the segments, JSON) and its sample table (binary). */
export const hlsKeys = (contentKey: string, contentId: number, revision = HLS_REVISION) => {
  const dir = `${contentKey}/hls/${hlsVersion(contentId, revision)}`;
  return { index: `${dir}/index.json`, samples: `${dir}/samples.bin` };
};
/**
 * A rendition (rung `name`, e.g. r360) of a version: its transcoded chunks, then its index and
 * sample table once complete, and each media segment once packaged (`packaged(file)`, the
 * stream's file name: written by its first request); renditionsPrefix holds every rung's
 * objects (deleted with the content).
 */
export const renditionKeys = (contentKey: string, contentId: number, name: string) => {
  const dir = `${contentKey}/hls/${hlsVersion(contentId)}/${name}`;
  return {
    chunk: (k: number) => `${dir}/chunk-${String(k).padStart(5, "0")}.mp4`,
    chunks: `${dir}/chunk-`,
    index: `${dir}/index.json`,
    samples: `${dir}/samples.bin`,
    packaged: (file: string) => `${dir}/packaged/${file}`,
  };
};
export const renditionsPrefix = (contentKey: string, contentId: number) =>
  `${contentKey}/hls/${hlsVersion(contentId)}/r`;

/**
 * A video's captions (docs/captions.md), under its row (a key created again has none of them):
 * each track's versions (`en/v3.vtt`: every saved version is kept until the track goes), and
 * the words each chunk of an automatic-captions job heard until the last one assembles them.
 */
export const captionsPrefix = (contentKey: string, contentId: number) =>
  `${contentKey}/captions/${contentId.toString(36)}/`;
export const captionKey = (
  contentKey: string,
  contentId: number,
  language: string,
  version: number,
) => `${captionsPrefix(contentKey, contentId)}${language}/v${version}.vtt`;
export const captionTrackPrefix = (contentKey: string, contentId: number, language: string) =>
  `${captionsPrefix(contentKey, contentId)}${language}/`;
export const captionJobKeys = (contentKey: string, contentId: number, jobId: number) => {
  const dir = `${captionsPrefix(contentKey, contentId)}jobs/${jobId}/`;
  return { prefix: dir, chunk: (k: number) => `${dir}chunk-${String(k).padStart(5, "0")}.json` };
};

/**
 * A live stream's files (docs/live.md): its playlists and the segments its encoder pushed, under
 * the same version as an uploaded video's stream (the content row), served at /live/.
 */
export const liveUrl = (baseUrl: string, contentKey: string, contentId: number, file: string) =>
  `${baseUrl}/live/${contentKey}/${hlsVersion(contentId)}/${file}`;
export const liveObjectPrefix = (contentKey: string, contentId: number) =>
  `${contentKey}/live/${hlsVersion(contentId)}/`;
export const liveObjectKey = (contentKey: string, contentId: number, file: string) =>
  `${liveObjectPrefix(contentKey, contentId)}${file}`;
/** What a live stream's record offers: the live window while it runs, the recording after. */
export const LIVE_PLAYLIST = "index.m3u8";
export const RECORDING_PLAYLIST = "recording.m3u8";
/** The live stream's multivariant playlist: the source and its rungs (docs/live.md "A ladder while live"). */
export const LIVE_MASTER = "master.m3u8";
/** The recording remuxed into one MP4 (domain/live/recording-vod.ts): its file once it exists. */
export const RECORDING_MP4 = "recording.mp4";
