// How a video is written out: the v2 record (spec 2.2) and the older snake_case records (2.3),
// each endpoint with its own field names.
import type { Content, Syndication } from "../../db/schema";
import { streamPath } from "../../shared/stream-files";
import {
  hlsUrl,
  hlsVersion,
  LIVE_MASTER,
  liveUrl,
  mediaUrl,
  RECORDING_PLAYLIST,
  serviceThumbnailUrl,
} from "../../storage/layout";
import type { Origins } from "../deps";

/** A content's thumbnail: the publisher's URL, else the service's (versioned by the stored thumbnail). */
export const thumbnailOf = (
  c: Pick<Content, "thumbnailUrl" | "contentKey" | "thumbnailVersion">,
  o: Pick<Origins, "staticUrl">,
) => c.thumbnailUrl ?? serviceThumbnailUrl(o.staticUrl, c.contentKey, c.thumbnailVersion);

/**
 * A live stream whose recording has been remuxed into an MP4 (domain/live/recording-vod.ts):
 * from then on it is played like an upload (its file packaged, its ladder).
 */
export const isRemuxedRecording = (c: Pick<Content, "liveState" | "suffix">) =>
  c.liveState === "ended" && c.suffix === ".mp4";

/**
 * The record's urlHLS: an operator's, else a live stream's (its live playlist while it runs, the
 * recording once ended: docs/live.md), else the service's packaging of the file (a remuxed
 * recording's too), unless its file is over the packager's budget (streamError).
 */
export function hlsUrlOf(
  c: Pick<
    Content,
    "urlHls" | "liveState" | "status" | "streamError" | "contentKey" | "id" | "suffix"
  >,
  o: Pick<Origins, "baseUrl">,
): string | null {
  if (c.urlHls) return c.urlHls;
  if (c.liveState !== null && !isRemuxedRecording(c))
    return c.liveState === "idle"
      ? null
      : liveUrl(
          o.baseUrl,
          c.contentKey,
          c.id,
          c.liveState === "live" ? LIVE_MASTER : RECORDING_PLAYLIST,
        );
  return c.status === "available" && c.streamError === null
    ? hlsUrl(o.baseUrl, c.contentKey, c.id)
    : null;
}

/** The record's url: the media file, or a live stream's playlist (it has no file). */
export const playbackUrlOf = (
  c: Pick<
    Content,
    "urlHls" | "liveState" | "status" | "streamError" | "contentKey" | "id" | "mediaKey" | "suffix"
  >,
  o: Pick<Origins, "baseUrl">,
) => (c.liveState !== null ? hlsUrlOf(c, o) : mediaUrl(o.baseUrl, c.mediaKey));

/** Where the service serves a caption track it keeps (a stable URL: the track's text may change). */
export const keptCaptionUrl = (
  c: Pick<Content, "contentKey" | "id">,
  language: string,
  o: Pick<Origins, "baseUrl">,
) => `${o.baseUrl}${streamPath(c.contentKey, hlsVersion(c.id), { kind: "caption", language })}`;

/**
 * The record's `subtitles` (spec 2.2: objects mapping a language code to a subtitle file's URL):
 * the publisher's own, then one object per caption track the service keeps.
 */
export const recordSubtitles = (
  c: Pick<Content, "contentKey" | "id" | "subtitles" | "captions">,
  o: Pick<Origins, "baseUrl">,
): Record<string, string>[] => [
  ...c.subtitles,
  ...c.captions.map((k) => ({ [k.language]: keptCaptionUrl(c, k.language, o) })),
];

/** Spec 2.2 (E6, and v2 feed files with `subtitles`). */
export function v2Record(c: Content, o: Origins) {
  return {
    contentKey: c.contentKey,
    createdDate: c.createdAt,
    publishedDate: c.publishedAt,
    title: c.title,
    description: c.description,
    duration: c.duration ?? 0,
    serviceCategories: c.serviceCategories,
    categories: c.categories,
    tags: c.tags,
    events: c.events,
    customFields: c.customFields,
    isLive: c.isLive,
    thumbnail: thumbnailOf(c, o),
    url: playbackUrlOf(c, o),
    // The service packages every published video (domain/streaming.ts) unless its file is over
    // the packager's budget (streamError); an operator may point elsewhere.
    urlHLS: hlsUrlOf(c, o),
  };
}

/** Spec 2.3 syndication object. */
export function syndicationObject(s: Syndication) {
  return { name: s.name, start_time: s.startTime, stop_time: s.stopTime, geos: s.geos };
}

/** Fields every older (2.3) record with a duration starts with: search, feed search, E9. */
export function olderRecordHead(c: Content) {
  return {
    content_key: c.contentKey,
    created_date: c.createdAt,
    description: c.description,
    duration: c.duration ?? 0,
    service_categories: c.serviceCategories,
    // Extension: a running live stream (docs/live.md), as in the v2 record.
    isLive: c.isLive,
  };
}

/** E13, E14 (search endpoints). */
export function searchRecord(c: Content, o: Origins) {
  return {
    ...olderRecordHead(c),
    privateCategory: c.categories,
    privateTag: c.tags,
    events: c.events,
    removed: c.removed,
    thumbnail: thumbnailOf(c, o),
    title: c.title,
  };
}

/** E15 (feed search). */
export function feedSearchRecord(c: Content, o: Origins, windows: Syndication[]) {
  return {
    ...olderRecordHead(c),
    removed: c.removed,
    syndications: windows.map(syndicationObject),
    thumbnail: thumbnailOf(c, o),
    title: c.title,
    translations: c.translations,
  };
}

/** E16: private names only when asked for. */
export function getVideosRecord(
  c: Content,
  o: Origins,
  include: { categories: boolean; tags: boolean },
) {
  return {
    content_key: c.contentKey,
    created_date: c.createdAt,
    description: c.description,
    ...(include.categories && { privateCategory: c.categories }),
    ...(include.tags && { privateTag: c.tags }),
    thumbnail: thumbnailOf(c, o),
    title: c.title,
    // Extension: a running live stream (docs/live.md), as in the v2 record.
    isLive: c.isLive,
  };
}
