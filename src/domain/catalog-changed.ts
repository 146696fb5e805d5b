// The one entry point for "the catalog changed". Every write path (content E1–E5, feed
// definitions, operator changes, credential rotation, windows opening or closing in the cron)
// calls it once, after its write, with what changed. It does now what must be true when the
// answer goes out (the organization's catalog version moves on, so cached reads get new keys;
// feeds marked dirty; files that must disappear removed) and, after the answer, asks the
// feed-rebuilds queue to republish the organization's dirty feeds (feeds/rebuild-requests.ts);
// if that message is lost, the dirty marks stay and the cron finishes the work.
//
// Webhook events sit beside this entry point, not on it (domain/webhooks/emit.ts): most of them
// (video.created, video.rejected, upload.expired, edits while uploading) change no feed.

import type { Db } from "../db/client";
import { listFeeds, markFeedsDirty } from "../db/feeds";
import { refreshNetworkListings } from "../db/network-listings";
import { bumpCatalogVersion, bumpNetworkVersion, bumpStatsVersion } from "../db/organizations";
import { removeFeedFiles, removeOrgFeedList } from "../storage/feed-files";
import type { Deps } from "./deps";
import { markFeedsOfVideos, type VideoNames } from "./feeds/membership";
import { feedFileStore, publishOrgFeedList } from "./feeds/publisher";
import { requestFeedRebuild } from "./feeds/rebuild-requests";
import { applyIsolateEffects, type Moved, nothingMoved } from "./isolate-effects";

export type CatalogChange =
  /**
   * Videos changed (published, edited, deleted, hidden, windows): every version, before and
   * after; `listings: "unchanged"` when no listing without a text filter can hold other videos
   * or order them otherwise (catalog/listings.ts#holdsSameListings): its listing version stays.
   */
  | { kind: "videos"; versions: VideoNames[]; listings?: "unchanged" }
  /** A feed was created or its definition replaced. */
  | { kind: "feed-saved"; feedId: number }
  /** A feed was deleted: its files go before the answer. */
  | { kind: "feed-deleted"; feedId: string }
  /** The organization's sync code was rotated: the feed list moves to the new path. */
  | { kind: "sync-code"; previous: string }
  /** What every search of the organization finds changed (its spoken-word search switched). */
  | { kind: "searches" };

/**
 * Records a change of an organization's catalog and returns what it moved, its effects on this
 * isolate's memory applied (isolate-effects.ts), even when a later step fails.
 */
export async function catalogChanged(
  deps: Deps,
  organizationId: number,
  change: CatalogChange,
): Promise<Moved> {
  const moved = nothingMoved();
  try {
    await recordCatalogChange(deps, organizationId, change, moved);
  } finally {
    applyIsolateEffects(moved);
  }
  return moved;
}

async function recordCatalogChange(
  deps: Deps,
  organizationId: number,
  change: CatalogChange,
  moved: Moved,
): Promise<void> {
  const now = deps.now.toISOString();
  let listMoved = false;
  // Whether feeds were marked dirty (or the list moved): only then is a rebuild asked for.
  let rebuild = true;
  // How long the queue holds the request (feeds waiting for patches: until they are due).
  let delaySeconds = 0;
  // New edge-cache keys for the organization's reads, at once in this isolate; its network's
  // listings get new keys only when a video shown to the network (before or after) changed.
  // Listing ids and counts kept under the listing version stay valid after an edit of text or
  // media alone.
  const listings = !(change.kind === "videos" && change.listings === "unchanged");
  const bumped = await bumpCatalogVersion(deps.db, organizationId, listings);
  const networkId = bumped?.networkId ?? null;
  // A rotated sync code must stop working at once here: drop the organization's lookups then.
  if (change.kind === "sync-code" || !bumped)
    moved.organizations.push({ organizationId, networkId: null });
  else
    moved.versions.push({
      organizationId,
      moved: { catalogVersion: bumped.catalogVersion, listingVersion: bumped.listingVersion },
    });
  let networkMoved = false;
  switch (change.kind) {
    case "videos":
      moved.videos.contentKeys.push(
        ...change.versions.flatMap((v) => (v.contentKey ? [v.contentKey] : [])),
      );
      moved.videos.contentIds.push(
        ...change.versions.flatMap((v) => (v.id !== undefined ? [v.id] : [])),
      );
      // What the network shows now of these videos (their windows, or whether they are listable).
      if (networkId !== null) {
        networkMoved = await refreshNetworkListings(
          deps.db,
          change.versions.flatMap((v) => (v.id !== undefined ? [v.id] : [])),
          now,
        );
        if (networkMoved) await bumpNetworkVersion(deps.db, networkId);
      }
      {
        const marked = await markFeedsOfVideos(deps.db, organizationId, change.versions, now);
        // Feeds waiting for patches wait FEED_PATCH_DELAY_SECONDS from their first change: the
        // change that started the wait asks for the pass, the ones after it join it.
        rebuild = marked.feeds.length > 0 && (!marked.patch || marked.waitStarted);
        if (marked.patch) delaySeconds = deps.config.feedPatchDelaySeconds;
      }
      break;
    case "feed-saved":
      await markFeedsDirty(deps.db, [change.feedId], now);
      break;
    case "feed-deleted":
      // A deleted feed must not stay readable, nor listed.
      await removeFeedFiles(feedFileStore(deps), [change.feedId]);
      await publishOrgFeedList(deps, organizationId);
      rebuild = false;
      break;
    case "sync-code":
      await removeOrgFeedList(feedFileStore(deps), change.previous);
      listMoved = true;
      break;
    case "searches":
      // Each feed's searches (E15) are keyed by the feed's version: all of them move.
      await markFeedsDirty(
        deps.db,
        (await listFeeds(deps.db, organizationId)).map((f) => f.id),
        now,
      );
      break;
  }
  if (networkMoved) moved.organizations.push({ organizationId, networkId });
  if (rebuild) deps.defer(askForRebuild(deps, organizationId, listMoved, delaySeconds));
}

async function askForRebuild(
  deps: Deps,
  organizationId: number,
  feedList: boolean,
  delaySeconds: number,
): Promise<void> {
  try {
    await requestFeedRebuild(deps, organizationId, feedList, delaySeconds);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "feed rebuild request not sent; the cron will rebuild",
        organization_id: organizationId,
        error: String(err),
      }),
    );
  }
}

/**
 * The statistics of these organizations changed (a queue batch counted their events, an
 * erasure, ecommerce items): their reports get new edge-cache keys, so the next read counts
 * what is there (other isolates: once their credential cache, 30 s, lets go of the version).
 */
export async function statisticsChanged(
  db: Db,
  organizationIds: number | readonly number[],
): Promise<Moved> {
  const ids = typeof organizationIds === "number" ? [organizationIds] : organizationIds;
  const moved = nothingMoved();
  for (const { id, statsVersion } of await bumpStatsVersion(db, ids))
    moved.versions.push({ organizationId: id, moved: { statsVersion } });
  applyIsolateEffects(moved);
  return moved;
}
