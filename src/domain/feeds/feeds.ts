// Feed definitions (docs/design.md), owned by an organization: create, replace, delete, and the
// operator's "rebuild now".
import type { ContentScope } from "../../db/catalog";
import { findContentByKeyAnyOrg } from "../../db/content";
import {
  deleteFeed,
  type FeedValues,
  feedsAfter,
  feedsIn,
  findFeedByFeedId,
  findFeedIn,
  insertFeed,
  updateFeed,
} from "../../db/feeds";
import type { Feed } from "../../db/schema";
import { randomAlphanumeric } from "../../shared/crypto";
import { notFound } from "../../shared/errors";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { keptLookup, type LookupDeps } from "../kept-lookups";
import { feedMetadata, markFeedsOfVideos } from "./membership";
import { rebuildFeeds } from "./publisher";

export interface FeedDefinition {
  name: string;
  configuration: { categories: string[]; tags: string[]; events: string[] };
}

const values = (d: FeedDefinition): FeedValues => ({ name: d.name, ...d.configuration });

/** A feed the caller manages (a sub-organization: its own only), else 404. */
async function ownFeed(deps: Pick<Deps, "db">, scope: ContentScope, feedId: string): Promise<Feed> {
  const feed = await findFeedIn(deps.db, scope, feedId);
  if (!feed) throw notFound(`feed ${feedId} does not exist`);
  return feed;
}

/**
 * A feed as its public reads (E15, json-feed) see it, kept in the isolate like a
 * credential (../kept-lookups.ts: dropped there at once by a change of its organization,
 * elsewhere within CREDENTIAL_CACHE_SECONDS, the bound its cached answers have anyway); read
 * from D1 for a request reading its own writes. Null for an unknown feed.
 */
export function publicFeed(
  deps: LookupDeps & { readsOwnWrites?: boolean },
  feedId: string,
): Promise<PublicFeed | null> {
  const load = async (): Promise<PublicFeed | null> => {
    const feed = await findFeedByFeedId(deps.db, feedId);
    // What its public reads need, no more (an isolate remembers up to 10,000 lookups).
    return (
      feed && {
        id: feed.id,
        organizationId: feed.organizationId,
        subOrganizationId: feed.subOrganizationId,
        version: feed.version,
        categories: feed.categories,
        tags: feed.tags,
        events: feed.events,
      }
    );
  };
  return deps.readsOwnWrites ? load() : keptLookup(deps, `feed\u0000${feedId}`, load);
}

export type PublicFeed = Pick<
  Feed,
  "id" | "organizationId" | "subOrganizationId" | "version" | "categories" | "tags" | "events"
>;

/** The version public reads of a feed are cached under; null for an unknown feed. */
export async function publicFeedVersion(deps: LookupDeps, feedId: string): Promise<number | null> {
  return (await publicFeed(deps, feedId))?.version ?? null;
}

export async function listOwnFeeds(deps: Pick<Deps, "db">, scope: ContentScope) {
  return (await feedsIn(deps.db, scope)).map(feedMetadata);
}

export async function showFeed(deps: Pick<Deps, "db">, scope: ContentScope, feedId: string) {
  return feedMetadata(await ownFeed(deps, scope, feedId));
}

/** Created with X-Service-MMI-Key, the feed is the sub-organization's and holds only its videos. */
export async function createFeed(deps: Deps, scope: ContentScope, definition: FeedDefinition) {
  const feed = await insertFeed(
    deps.db,
    scope,
    randomAlphanumeric(12),
    values(definition),
    deps.now.toISOString(),
  );
  await catalogChanged(deps, scope.organizationId, { kind: "feed-saved", feedId: feed.id });
  return feedMetadata(feed);
}

export async function replaceFeed(
  deps: Deps,
  scope: ContentScope,
  feedId: string,
  definition: FeedDefinition,
) {
  const feed = await ownFeed(deps, scope, feedId);
  const updated = await updateFeed(deps.db, feed.id, values(definition), deps.now.toISOString());
  await catalogChanged(deps, scope.organizationId, { kind: "feed-saved", feedId: feed.id });
  return feedMetadata(updated);
}

export async function removeFeed(deps: Deps, scope: ContentScope, feedId: string) {
  const feed = await ownFeed(deps, scope, feedId);
  await deleteFeed(deps.db, feed.id);
  await catalogChanged(deps, scope.organizationId, { kind: "feed-deleted", feedId: feed.feedId });
  return feedMetadata(feed);
}

export type RebuildTarget =
  | { feedId: string }
  | { contentKey: string }
  | { all: true; afterId: number; limit: number };

/** Operator: rebuild feed files now (after a bulk import, to force a rewrite, or to measure it). */
export async function rebuildNow(deps: Deps, target: RebuildTarget, force: boolean) {
  let feeds: Feed[];
  let nextAfterId: number | null = null;
  if ("feedId" in target) {
    const feed = await findFeedByFeedId(deps.db, target.feedId);
    if (!feed) throw notFound(`feed ${target.feedId} does not exist`);
    feeds = [feed];
  } else if ("contentKey" in target) {
    const content = await findContentByKeyAnyOrg(deps.db, target.contentKey);
    if (!content) throw notFound(`contentKey: ${target.contentKey} does not exist`);
    ({ feeds } = await markFeedsOfVideos(
      deps.db,
      content.organizationId,
      [content],
      deps.now.toISOString(),
    ));
  } else {
    feeds = await feedsAfter(deps.db, target.afterId, target.limit);
    nextAfterId = feeds.length === target.limit ? feeds[feeds.length - 1]!.id : null;
  }
  // Forgetting the recorded hashes makes every file count as changed.
  const stats = await rebuildFeeds(deps, force ? feeds.map((f) => ({ ...f, files: {} })) : feeds);
  return { feeds: stats.feeds, written: stats.written, unchanged: stats.unchanged, nextAfterId };
}
