// Publishing feeds as static JSON files in R2 (spec 2.2, 2.4, 4.6).
//
// A feed's files hold its published videos (available, not removed, syndication window open if
// it has any), newest first, at most FEED_MAX_VIDEOS. Each file carries `generated_at`; a file
// is written only when its content (everything but generated_at) changed, judged by a SHA-256
// kept in feeds.files, so unchanged feeds keep their ETag and caches stay warm.
import { eq } from "drizzle-orm";
import { findLabelIds, listVideos } from "../db/catalog";
import type { Db } from "../db/client";
import { dirtyFeeds, listFeeds, recordFeedBuild } from "../db/feeds";
import { organizations, type Content, type Feed, type Syndication } from "../db/schema";
import { feedFileKeys, orgFeedListKey } from "../storage/layout";
import { feedNameQueries, feedVideosCondition } from "./catalog/video-filter";
import { thumbnailOf, v2Record, type Origins } from "./catalog/records";
import { feedMetadata } from "./feeds";

export interface PublishDeps {
  db: Db;
  bucket: R2Bucket;
  origins: Origins;
  now: Date;
  maxVideos: number;
}

export interface PublishStats {
  feeds: number;
  written: number;
  unchanged: number;
}

interface FeedBuild extends PublishStats {
  /** The metadata file changed (new feed, new name or configuration): the feed list may too. */
  metadataChanged: boolean;
}

const encoder = new TextEncoder();

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const FEED_FILE_HTTP_METADATA = { contentType: "application/json; charset=utf-8" };

/**
 * Writes `content` + generated_at at `key` unless the content hash equals `previousHash`.
 * Returns the content hash.
 */
async function writeIfChanged(bucket: R2Bucket, key: string, content: object, previousHash: string | undefined, generatedAt: string) {
  const hash = await sha256(JSON.stringify(content));
  if (hash === previousHash) return { hash, written: false };
  await bucket.put(key, JSON.stringify({ ...content, generated_at: generatedAt }), {
    httpMetadata: FEED_FILE_HTTP_METADATA,
    customMetadata: { contentHash: hash },
  });
  return { hash, written: true };
}

/** The feed's published videos, newest first, capped at maxVideos. */
export async function feedVideos(deps: Pick<PublishDeps, "db" | "now">, feed: Feed, page: { limit: number; offset: number }) {
  const ids = await findLabelIds(deps.db, [feed.organizationId], feedNameQueries(feed));
  const where = feedVideosCondition(feed, ids, deps.now.toISOString());
  return { where, rows: await listVideos(deps.db, where, page) };
}

/** `<feed_id>-feed.json` (spec 2.4, the older feed file). */
function legacyFeedFile(feed: Feed, rows: Content[], o: Origins) {
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
function v2VideosFile(rows: Content[], o: Origins) {
  return {
    videos: rows.map((r) => ({ ...v2Record(r, o), duration: String(Math.round(r.duration ?? 0)), subtitles: r.subtitles })),
  };
}

/** Rebuilds one feed's three files; returns how many were written. */
export async function rebuildFeed(deps: PublishDeps, feed: Feed): Promise<FeedBuild> {
  const { rows } = await feedVideos(deps, feed, { limit: deps.maxVideos, offset: 0 });
  const keys = feedFileKeys(feed.feedId);
  const generatedAt = deps.now.toISOString();
  const files: [string, object][] = [
    [keys.legacy, legacyFeedFile(feed, rows, deps.origins)],
    [keys.videos, v2VideosFile(rows, deps.origins)],
    [keys.metadata, feedMetadata(feed)],
  ];
  const state: Feed["files"] = {};
  const stats: FeedBuild = { feeds: 1, written: 0, unchanged: 0, metadataChanged: false };
  for (const [key, content] of files) {
    const { hash, written } = await writeIfChanged(deps.bucket, key, content, feed.files[key], generatedAt);
    state[key] = hash;
    stats[written ? "written" : "unchanged"] += 1;
    if (written && key === keys.metadata) stats.metadataChanged = true;
  }
  await recordFeedBuild(deps.db, feed, state, generatedAt);
  return stats;
}

/** `v2/orgs/<sync_code>/feeds.json`; the previous hash is kept in the object's metadata. */
export async function publishOrgFeedList(deps: PublishDeps, organizationId: number): Promise<boolean> {
  const [org] = await deps.db
    .select({ syncCode: organizations.syncCode })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  if (!org) return false;
  const key = orgFeedListKey(org.syncCode);
  const content = { feeds: (await listFeeds(deps.db, organizationId)).map((f) => ({ feed_id: f.feedId, name: f.name })) };
  const previous = await deps.bucket.head(key);
  const { written } = await writeIfChanged(deps.bucket, key, content, previous?.customMetadata?.contentHash, deps.now.toISOString());
  return written;
}

export async function removeFeedFiles(bucket: R2Bucket, feedId: string): Promise<void> {
  await bucket.delete(Object.values(feedFileKeys(feedId)));
}

export function addStats(a: PublishStats, b: PublishStats): PublishStats {
  return { feeds: a.feeds + b.feeds, written: a.written + b.written, unchanged: a.unchanged + b.unchanged };
}

/**
 * Rebuilds dirty feeds, oldest mark first, at most `limit` (optionally one organization's),
 * and the feed lists of the organizations whose feeds' metadata changed.
 */
export async function rebuildDirtyFeeds(deps: PublishDeps, limit: number, organizationId?: number): Promise<PublishStats> {
  let total: PublishStats = { feeds: 0, written: 0, unchanged: 0 };
  const listsToPublish = new Set<number>();
  for (const feed of await dirtyFeeds(deps.db, limit, organizationId)) {
    const build = await rebuildFeed(deps, feed);
    if (build.metadataChanged) listsToPublish.add(feed.organizationId);
    total = addStats(total, build);
  }
  for (const id of listsToPublish) await publishOrgFeedList(deps, id);
  return total;
}

/** The deprecated json-feed listing entries (spec 2.4), one per video. */
export function jsonFeedEntries(rows: Content[], windows: Map<number, Syndication[]>, organizationKeys: Map<number, string>, total: number, o: Origins, now: string) {
  return rows.map((r) => {
    const open = (windows.get(r.id) ?? []).find((w) => w.startTime <= now && (w.stopTime === null || w.stopTime > now));
    const geos = open && open.geos.length > 0 && !open.geos.includes("-") ? open.geos.join(",") : "-";
    return {
      categories: r.serviceCategories,
      content_key: r.contentKey,
      created_date: r.createdAt,
      creator_code: organizationKeys.get(r.organizationId) ?? null,
      start_date: open?.startTime ?? r.publishedAt,
      end_date: open?.stopTime ?? null,
      geos,
      key: r.contentKey,
      total_videos: total,
      video: {
        description: r.description,
        duration: String(Math.round(r.duration ?? 0)),
        id: r.id,
        key: r.contentKey,
        thumbnail: thumbnailOf(r, o),
        title: r.title,
        translations: r.translations,
      },
    };
  });
}
