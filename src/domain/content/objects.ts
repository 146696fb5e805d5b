// The content object E1–E5 answer with (and the webhooks carry): one writer for every caller.
import type { Content } from "../../db/schema";
import type { ContentObject } from "../../schemas/content";
import { playbackUrlOf, thumbnailOf } from "../catalog/records";
import type { Origins } from "../deps";

export function toContentObject(c: Content, urls: Origins): ContentObject {
  return {
    contentKey: c.contentKey,
    title: c.title,
    description: c.description,
    thumbnailUrl: thumbnailOf(c, urls),
    categories: c.categories,
    tags: c.tags,
    events: c.events,
    customFields: c.customFields,
    translations: c.translations,
    subtitles: c.subtitles,
    isLive: c.isLive,
    signedPlayback: c.signedPlayback,
    enforcePlaybackWindows: c.enforcePlaybackWindows,
    adTagUrl: c.adTagUrl,
    itemPlacements: c.itemPlacements,
    status: c.status,
    rejectionReason: c.rejectionReason,
    duration: c.duration,
    createdDate: c.createdAt,
    publishedDate: c.publishedAt,
    url: c.status === "available" ? playbackUrlOf(c, urls) : null,
  };
}
