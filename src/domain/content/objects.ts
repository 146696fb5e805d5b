// The content object E1–E5 answer with (and the webhooks carry): one writer for every caller;
// and the caller's content, looked up by its key (404 otherwise).
import type { ContentScope } from "../../db/catalog";
import type { Db } from "../../db/client";
import { findContent } from "../../db/content";
import type { Content } from "../../db/schema";
import type { ContentObject } from "../../schemas/content";
import { notFound } from "../../shared/errors";
import { playbackUrlOf, recordSubtitles, thumbnailOf } from "../catalog/records";
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
    subtitles: recordSubtitles(c, urls),
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

/** The caller's content (its scope's), or a 404 naming the key. */
export async function loadContentOr404(
  db: Db,
  scope: ContentScope,
  contentKey: string,
): Promise<Content> {
  const content = await findContent(db, scope, contentKey);
  if (!content) throw notFound(`contentKey: ${contentKey} does not exist`);
  return content;
}
