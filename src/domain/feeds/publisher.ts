// Publishing feeds as static JSON files in R2 (spec 2.2, 2.4, 4.6).
//
// A feed's files hold its published videos (listable, with no syndication window or one open
// now), newest first, at most FEED_MAX_VIDEOS. Each file carries `generated_at`; a file is
// written only when its content changed (storage/feed-files.ts), so unchanged feeds keep their
// ETag and caches stay warm.
import { listVideos } from "../../db/catalog";
import { claimFeeds, dirtyFeedIds, listFeeds, recordFeedBuild } from "../../db/feeds";
import { findOrganizationById } from "../../db/organizations";
import type { Content, Feed } from "../../db/schema";
import { feedPublishedCondition } from "../../db/video-query";
import { feedFileKeys, orgFeedListKey, writeFeedFile, type FeedFileStore } from "../../storage/feed-files";
import { thumbnailOf, v2Record } from "../catalog/records";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { feedMembership, feedMetadata } from "./membership";

/** Where feed files live: the bucket, and the origin whose edge cache holds copies of them. */
export function feedFileStore(deps: Pick<Deps, "bucket" | "origins">): FeedFileStore {
  return { bucket: deps.bucket, origin: deps.origins.baseUrl };
}

export type PublishDeps = Pick<Deps, "db" | "bucket" | "origins" | "now" | "config" | "webhookQueue">;

export interface PublishStats {
  feeds: number;
  written: number;
  unchanged: number;
}

export const noStats = (): PublishStats => ({ feeds: 0, written: 0, unchanged: 0 });

export function addStats(a: PublishStats, b: PublishStats): PublishStats {
  return { feeds: a.feeds + b.feeds, written: a.written + b.written, unchanged: a.unchanged + b.unchanged };
}

/** `<feed_id>-feed.json` (spec 2.4, the older feed file). */
function legacyFeedFile(feed: Feed, rows: Content[], o: PublishDeps["origins"]) {
  const serviceCategories = [...new Set(rows.flatMap((r) => r.serviceCategories))].sort();
  return {
    feed_id: feed.feedId,
    name: feed.name,
    categories: serviceCategories,
    privateCategories: feed.categories,
    privateTags: feed.tags,
    events: feed.events,
    videos: rows.map((r) => ({
      content_key: r.contentKey,
      created_date: r.createdAt,
      title: r.title,
      description: r.description,
      duration: Math.round(r.duration ?? 0),
      categories: r.serviceCategories,
      privateCategories: r.categories,
      privateTags: r.tags,
      events: r.events,
      thumbnail: thumbnailOf(r, o),
      translations: r.translations,
    })),
  };
}

/** `v2/feeds/<id>/videos.json`: 2.2 records with subtitles; duration as a string of digits. */
function v2VideosFile(rows: Content[], o: PublishDeps["origins"]) {
  return {
    videos: rows.map((r) => ({ ...v2Record(r, o), duration: String(Math.round(r.duration ?? 0)), subtitles: r.subtitles })),
  };
}

/** Rebuilds one feed's three files. `metadataChanged`: the feed list may have changed too. */
export async function rebuildFeed(deps: PublishDeps, feed: Feed): Promise<PublishStats & { metadataChanged: boolean }> {
  const now = deps.now.toISOString();
  const where = await feedPublishedCondition(deps.db, feedMembership(feed), now);
  const rows = await listVideos(deps.db, where, { limit: deps.config.feedMaxVideos, offset: 0 });
  const keys = feedFileKeys(feed.feedId);
  const files: [string, object][] = [
    [keys.legacy, legacyFeedFile(feed, rows, deps.origins)],
    [keys.videos, v2VideosFile(rows, deps.origins)],
    [keys.metadata, feedMetadata(feed)],
  ];
  const state: Feed["files"] = {};
  const stats = { feeds: 1, written: 0, unchanged: 0, metadataChanged: false };
  for (const [key, content] of files) {
    // "" (never undefined) for a file never written: no R2 head needed to know it is new.
    const { hash, written } = await writeFeedFile(feedFileStore(deps), key, content, now, feed.files[key] ?? "");
    state[key] = hash;
    stats[written ? "written" : "unchanged"] += 1;
    if (written && key === keys.metadata) stats.metadataChanged = true;
  }
  await recordFeedBuild(deps.db, feed, state, now);
  if (stats.written > 0) {
    // Webhook feed.published: the feed's files were rewritten (unchanged files are not).
    const files = Object.fromEntries(Object.entries(keys).map(([name, key]) => [name, `${deps.origins.staticUrl}/${key}`]));
    await emitWebhookEvent(deps, feed.organizationId, "feed.published", { feed_id: feed.feedId, name: feed.name, videos: rows.length, files, publishedAt: now });
  }
  return stats;
}

/** `v2/orgs/<sync_code>/feeds.json`: the organization's feeds. */
export async function publishOrgFeedList(deps: PublishDeps, organizationId: number): Promise<boolean> {
  const org = await findOrganizationById(deps.db, organizationId);
  if (!org) return false;
  const content = { feeds: (await listFeeds(deps.db, organizationId)).map((f) => ({ feed_id: f.feedId, name: f.name })) };
  const { written } = await writeFeedFile(feedFileStore(deps), orgFeedListKey(org.syncCode), content, deps.now.toISOString());
  return written;
}

/** Rebuilds the given feeds, then the feed lists of the organizations whose feeds' metadata changed. */
export async function rebuildFeeds(deps: PublishDeps, feeds: Feed[], alsoLists: Iterable<number> = []): Promise<PublishStats> {
  let total = noStats();
  const lists = new Set(alsoLists);
  for (const feed of feeds) {
    const build = await rebuildFeed(deps, feed);
    if (build.metadataChanged) lists.add(feed.organizationId);
    total = addStats(total, build);
  }
  for (const id of lists) await publishOrgFeedList(deps, id);
  return total;
}

/** How long a rebuild holds a feed; a run that dies holding it lets the next run take it after. */
const LEASE_MS = 2 * 60_000;

/** Rebuilds the given feeds that no other rebuild holds (the lease makes overlapping runs share the work). */
export async function rebuildUnclaimed(deps: PublishDeps, ids: number[], alsoLists: Iterable<number> = []): Promise<PublishStats> {
  const leaseUntil = new Date(deps.now.getTime() + LEASE_MS).toISOString();
  return rebuildFeeds(deps, await claimFeeds(deps.db, ids, deps.now.toISOString(), leaseUntil), alsoLists);
}

/**
 * Rebuilds dirty feeds, oldest mark first, at most `limit` (optionally one organization's). A
 * feed marked again while it was being rebuilt is dirty again afterwards: the loop takes it
 * once more, so a write during a rebuild is not left for the next cron run.
 */
export async function rebuildDirtyFeeds(deps: PublishDeps, limit: number, organizationId?: number, alsoLists: Iterable<number> = []) {
  let total = noStats();
  let lists = alsoLists;
  while (total.feeds < limit) {
    const ids = await dirtyFeedIds(deps.db, limit - total.feeds, deps.now.toISOString(), organizationId);
    const round = await rebuildUnclaimed(deps, ids, lists);
    lists = [];
    if (round.feeds === 0) break;
    total = addStats(total, round);
  }
  return total;
}
