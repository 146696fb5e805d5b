// Feed definitions (DESIGN.md): `{name, configuration: {categories, tags, events}}` owned by an
// organization; a video belongs when it carries any listed name (empty: all its videos).
import type { Db } from "../db/client";
import { listFeeds, markFeedsDirty } from "../db/feeds";
import type { Content, Feed } from "../db/schema";
import { randomAlphanumeric } from "./credentials";

export function newFeedId(): string {
  return randomAlphanumeric(12);
}

export function feedMetadata(feed: Feed) {
  return {
    feed_id: feed.feedId,
    name: feed.name,
    configuration: { categories: feed.categories, tags: feed.tags, events: feed.events },
  };
}

/** Whether a video with these names belongs to the feed. */
export function feedIncludes(feed: Pick<Feed, "categories" | "tags" | "events">, video: Pick<Content, "categories" | "tags" | "events">): boolean {
  if (feed.categories.length + feed.tags.length + feed.events.length === 0) return true;
  return (
    feed.categories.some((n) => video.categories.includes(n)) ||
    feed.tags.some((n) => video.tags.includes(n)) ||
    feed.events.some((n) => video.events.includes(n))
  );
}

/**
 * Marks the organization's feeds that any of the given versions of a video belongs to (before
 * and after a change), so their files are rebuilt. Returns the marked feeds.
 */
export async function markFeedsOfVideos(
  db: Db,
  organizationId: number,
  versions: Pick<Content, "categories" | "tags" | "events">[],
  now: string,
): Promise<Feed[]> {
  const affected = (await listFeeds(db, organizationId)).filter((f) => versions.some((v) => feedIncludes(f, v)));
  await markFeedsDirty(db, affected.map((f) => f.id), now);
  return affected;
}
