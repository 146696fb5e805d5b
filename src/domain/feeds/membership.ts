// Feed membership (docs/design.md), the one place it is defined: a feed `{name, configuration:
// {categories, tags, events}}` holds its organization's videos that carry any listed name; an
// empty configuration holds all of them. A feed created with a sub-organization's credentials
// holds only that sub-organization's videos. The rule is data (a FeedMembership) that the
// listing SQL (db/video-query.ts) and `holds` below both evaluate.

import type { ContentScope } from "../../db/catalog";
import type { Db } from "../../db/client";
import { feedsNaming, markFeedsDirty, markFeedsForPatch } from "../../db/feeds";
import type { Content, Feed } from "../../db/schema";
import type { FeedMembership } from "../../db/video-query";

/** A version of a video as its feeds see it (the content key when known: its files stop or start serving). */
export type VideoNames = Pick<Content, "subOrganizationId" | "categories" | "tags" | "events"> & {
  contentKey?: string;
  id?: number;
};

export function feedMembership(
  feed: Pick<Feed, "organizationId" | "subOrganizationId" | "categories" | "tags" | "events">,
): FeedMembership {
  return {
    organizationId: feed.organizationId,
    subOrganizationId: feed.subOrganizationId,
    anyOf: [
      ...feed.categories.map((name) => ({ kind: "category" as const, name })),
      ...feed.tags.map((name) => ({ kind: "tag" as const, name })),
      ...feed.events.map((name) => ({ kind: "event" as const, name })),
    ],
  };
}

/** Whether a video with these names (of the feed's organization) is a member. */
export function holds(membership: FeedMembership, video: VideoNames): boolean {
  if (
    membership.subOrganizationId !== null &&
    video.subOrganizationId !== membership.subOrganizationId
  )
    return false;
  if (membership.anyOf.length === 0) return true;
  const names = { category: video.categories, tag: video.tags, event: video.events };
  return membership.anyOf.some((n) => names[n.kind].includes(n.name));
}

/** Whether a caller of this scope sees the feed: the organization every feed of its own, a sub-organization its own feeds only. */
export function feedVisibleTo(
  scope: ContentScope,
  feed: Pick<Feed, "organizationId" | "subOrganizationId">,
): boolean {
  return (
    feed.organizationId === scope.organizationId &&
    (scope.subOrganizationId === null || feed.subOrganizationId === scope.subOrganizationId)
  );
}

/**
 * Marks the organization's feeds that any of the given versions of a video belongs to (before
 * and after a change), so their files follow. When every version names its video (its id),
 * the feeds wait for those videos' entries to be patched (patches.ts); otherwise they are
 * rebuilt. Returns the marked feeds, and whether a feed started waiting for patches now (its
 * first change since it was built: someone must ask for the pass).
 */
export async function markFeedsOfVideos(
  db: Db,
  organizationId: number,
  versions: VideoNames[],
  now: string,
): Promise<{ feeds: Feed[]; patch: boolean; waitStarted: boolean }> {
  const names = versions.flatMap((v) => [
    ...v.categories.map((name) => ({ kind: "category" as const, name })),
    ...v.tags.map((name) => ({ kind: "tag" as const, name })),
    ...v.events.map((name) => ({ kind: "event" as const, name })),
  ]);
  // The feeds naming one of the names (or none), then the whole rule (sub-organizations).
  const affected = (await feedsNaming(db, organizationId, names)).filter((f) =>
    versions.some((v) => holds(feedMembership(f), v)),
  );
  const ids = affected.map((f) => f.id);
  const videoIds = versions.map((v) => v.id);
  if (videoIds.every((id) => id !== undefined)) {
    const started = await markFeedsForPatch(db, ids, videoIds as number[], now);
    return { feeds: affected, patch: true, waitStarted: started > 0 };
  }
  await markFeedsDirty(db, ids, now);
  return { feeds: affected, patch: false, waitStarted: false };
}

export function feedMetadata(feed: Feed) {
  return {
    feed_id: feed.feedId,
    name: feed.name,
    configuration: { categories: feed.categories, tags: feed.tags, events: feed.events },
  };
}
