// Publishing feeds as static JSON files in R2 (spec 2.2, 2.4, 4.6).
//
// A feed's files hold its published videos (listable, with no syndication window or one open
// now), newest first, at most FEED_MAX_VIDEOS. Each file carries `generated_at`; a file is
// written only when its content changed (storage/feed-files.ts), so unchanged feeds keep their
// ETag and caches stay warm.
//
// Feeds of one organization are rebuilt together, in one pass: one newest-first walk of the
// organization's published videos reads the names each video carries and sorts it into every
// feed it belongs to (membership.ts `holds`, the one rule), stopping once every feed is full;
// then each needed record is fetched once by id, however many of the feeds list it. A write to
// a video in 170 feeds thus reads about the organization's listing once, not once per feed.
import { listableContentsByIds, publishedVideoNames } from "../../db/feed-sources";
import { claimFeeds, dirtyFeedIds, listFeeds, recordFeedBuild, releaseFeeds } from "../../db/feeds";
import { findOrganizationById } from "../../db/organizations";
import type { Content, Feed } from "../../db/schema";
import {
  feedFileKeys,
  orgFeedListKey,
  writeFeedFile,
  type FeedFileStore,
} from "../../storage/feed-files";
import { recordSubtitles, thumbnailOf, v2Record } from "../catalog/records";
import type { Deps } from "../deps";
import { objectWithArray } from "../../shared/json-text";
import { emitWebhookEvent } from "../webhooks/emit";
import { feedMembership, feedMetadata, holds } from "./membership";
import { unlimitedBudget, type WorkBudget } from "./work";

/** Where feed files live: the bucket, and the origin whose edge cache holds copies of them. */
export function feedFileStore(deps: Pick<Deps, "bucket" | "origins">): FeedFileStore {
  return { bucket: deps.bucket, origin: deps.origins.baseUrl };
}

export type PublishDeps = Pick<
  Deps,
  "db" | "bucket" | "origins" | "now" | "config" | "webhookQueue"
>;

export interface PublishStats {
  feeds: number;
  written: number;
  unchanged: number;
}

export const noStats = (): PublishStats => ({ feeds: 0, written: 0, unchanged: 0 });

export function addStats(a: PublishStats, b: PublishStats): PublishStats {
  return {
    feeds: a.feeds + b.feeds,
    written: a.written + b.written,
    unchanged: a.unchanged + b.unchanged,
  };
}

/** A video as `<feed_id>-feed.json` lists it (spec 2.4, the older feed file). */
function legacyFeedRecord(r: Content, o: PublishDeps["origins"]) {
  return {
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
    isLive: r.isLive,
  };
}

/** A video as `v2/feeds/<id>/videos.json` lists it: its 2.2 record with subtitles; duration as a string of digits. */
function v2FeedRecord(r: Content, o: PublishDeps["origins"]) {
  return {
    ...v2Record(r, o),
    duration: String(Math.round(r.duration ?? 0)),
    subtitles: recordSubtitles(r, o),
  };
}

/** A feed's videos, each record's JSON text rendered once per pass (shared by every feed that lists it). */
interface FeedVideos {
  rows: Content[];
  legacy: string[];
  v2: string[];
}

/** `<feed_id>-feed.json` (spec 2.4, the older feed file), as JSON text. */
function legacyFeedFile(feed: Feed, videos: FeedVideos): string {
  const serviceCategories = [...new Set(videos.rows.flatMap((r) => r.serviceCategories))].sort();
  const head = {
    feed_id: feed.feedId,
    name: feed.name,
    categories: serviceCategories,
    privateCategories: feed.categories,
    privateTags: feed.tags,
    events: feed.events,
  };
  return objectWithArray(head, "videos", videos.legacy);
}

/** Videos per query of the membership walk. */
const WALK_PAGE = 2000;
/** Records per query when fetching by id (one bound JSON parameter, ./db/client.ts inList). */
const FETCH_BATCH = 500;
/** Feeds one pass takes at most (their member lists are held in memory together). */
const PASS_FEEDS = 1000;

/**
 * Each feed's published videos, newest first, at most FEED_MAX_VIDEOS: ids from one walk of the
 * organization's published videos, judged by `holds` on the names the walk reads.
 */
async function membersOf(
  deps: PublishDeps,
  organizationId: number,
  feeds: Feed[],
): Promise<Map<number, number[]>> {
  const max = deps.config.feedMaxVideos;
  const wanting = feeds.map((feed) => ({
    feed,
    membership: feedMembership(feed),
    ids: [] as number[],
  }));
  let open = wanting;
  let after: Pick<Content, "id" | "publishedAt"> | null = null;
  while (open.length > 0) {
    const page = await publishedVideoNames(
      deps.db,
      organizationId,
      deps.now.toISOString(),
      after,
      WALK_PAGE,
    );
    for (const video of page) {
      for (const f of open)
        if (f.ids.length < max && holds(f.membership, video)) f.ids.push(video.id);
    }
    // Full feeds drop out; the walk ends when none is left or the videos are.
    open = open.filter((f) => f.ids.length < max);
    if (page.length < WALK_PAGE) break;
    after = page[page.length - 1]!;
  }
  return new Map(wanting.map((f) => [f.feed.id, f.ids]));
}

/**
 * The records a pass needs, each fetched and rendered once: a record (its row and its JSON text
 * in each file's shape) is kept while a feed still to be built lists it, and let go after the
 * last one (so memory holds what is still needed, not the union).
 */
class SharedRecords {
  private readonly records = new Map<number, Content>();
  private readonly rendered = new Map<number, { legacy: string; v2: string }>();
  private readonly uses = new Map<number, number>();

  constructor(
    private readonly deps: PublishDeps,
    memberLists: Iterable<number[]>,
  ) {
    for (const ids of memberLists)
      for (const id of ids) this.uses.set(id, (this.uses.get(id) ?? 0) + 1);
  }

  /** The records of `ids`, in that order, with their JSON text (a video no longer listable is left out). */
  async take(ids: number[]): Promise<FeedVideos> {
    const missing = ids.filter((id) => !this.records.has(id));
    for (let i = 0; i < missing.length; i += FETCH_BATCH) {
      for (const row of await listableContentsByIds(
        this.deps.db,
        missing.slice(i, i + FETCH_BATCH),
      ))
        this.records.set(row.id, row);
    }
    const videos: FeedVideos = { rows: [], legacy: [], v2: [] };
    for (const id of ids) {
      const row = this.records.get(id);
      if (!row) continue;
      let text = this.rendered.get(id);
      if (!text) {
        text = {
          legacy: JSON.stringify(legacyFeedRecord(row, this.deps.origins)),
          v2: JSON.stringify(v2FeedRecord(row, this.deps.origins)),
        };
        this.rendered.set(id, text);
      }
      videos.rows.push(row);
      videos.legacy.push(text.legacy);
      videos.v2.push(text.v2);
    }
    for (const id of ids) {
      const left = (this.uses.get(id) ?? 1) - 1;
      if (left > 0) this.uses.set(id, left);
      else {
        this.uses.delete(id);
        this.records.delete(id);
        this.rendered.delete(id);
      }
    }
    // A video missing from the fetch (deleted or hidden meanwhile) is not fetched again.
    for (const id of missing) if (!this.records.has(id)) this.uses.delete(id);
    return videos;
  }
}

/** Writes one feed's three files from its videos and records the build. */
async function publishFeed(
  deps: PublishDeps,
  feed: Feed,
  videos: FeedVideos,
): Promise<PublishStats & { metadataChanged: boolean }> {
  const now = deps.now.toISOString();
  const keys = feedFileKeys(feed.feedId);
  const rows = videos.rows;
  const files: [string, string][] = [
    [keys.legacy, legacyFeedFile(feed, videos)],
    // `v2/feeds/<id>/videos.json`: the v2 records.
    [keys.videos, objectWithArray({}, "videos", videos.v2)],
    [keys.metadata, JSON.stringify(feedMetadata(feed))],
  ];
  const state: Feed["files"] = {};
  const stats = { feeds: 1, written: 0, unchanged: 0, metadataChanged: false };
  // The three writes at once: each is an R2 round trip of up to a few MB.
  const results = await Promise.all(
    files.map(([key, content]) =>
      writeFeedFile(feedFileStore(deps), key, content, now, feed.files[key] ?? ""),
    ),
  );
  for (const [i, [key]] of files.entries()) {
    // "" (never undefined) for a file never written: no R2 head needed to know it is new.
    const { hash, written } = results[i]!;
    state[key] = hash;
    stats[written ? "written" : "unchanged"] += 1;
    if (written && key === keys.metadata) stats.metadataChanged = true;
  }
  await recordFeedBuild(deps.db, feed, state, now);
  if (stats.written > 0) {
    // Webhook feed.published: the feed's files were rewritten (unchanged files are not).
    const files = Object.fromEntries(
      Object.entries(keys).map(([name, key]) => [name, `${deps.origins.staticUrl}/${key}`]),
    );
    await emitWebhookEvent(deps, feed, "feed.published", {
      feed_id: feed.feedId,
      name: feed.name,
      videos: rows.length,
      files,
      publishedAt: now,
    });
  }
  return stats;
}

/**
 * A pass is seconds of work (each feed's files are built and hashed in memory), and an isolate
 * runs one piece of JavaScript at a time: between feeds, once YIELD_EVERY_MS have passed since
 * the last turn, the pass gives the event loop a turn so the requests that arrived meanwhile are
 * answered (locally, where the worker, D1 and R2 share one thread, /healthz waited for a whole
 * pass on the 1,000-feed bulk catalog). Not at every feed: each turn costs the pass time.
 * In production a queue invocation may share its isolate with requests too. 50 ms rather than
 * 200 halved readers' p99 under writes for somewhat longer passes (docs/benchmarks.md, "Reads
 * while a publisher writes").
 */
const YIELD_EVERY_MS = 50;
function turnTaker() {
  let last = Date.now();
  return async () => {
    // Date.now() moves at each I/O in workerd: the time since the last turn, to the last read or write.
    if (Date.now() - last < YIELD_EVERY_MS) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    last = Date.now();
  };
}

/**
 * Rebuilds feeds of one organization together (one walk, each record fetched once) while the
 * budget lasts, at least one. Returns the stats, the feeds left unbuilt, and whether a feed's
 * metadata file changed (the organization's feed list may need republishing).
 */
async function rebuildTogether(
  deps: PublishDeps,
  organizationId: number,
  feeds: Feed[],
  budget: WorkBudget,
) {
  let stats = noStats();
  let metadataChanged = false;
  const members = await membersOf(deps, organizationId, feeds);
  const records = new SharedRecords(deps, members.values());
  const takeATurn = turnTaker();
  // Up to FEEDS_IN_FLIGHT feeds are written at once: the next feed is put together while the
  // previous ones' files travel to R2.
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  // Waits for the feeds in flight; the first failure fails the pass (its feeds stay dirty).
  const settle = async () => {
    await Promise.all(inFlight);
    if (failure) throw failure.error;
  };
  for (const [i, feed] of feeds.entries()) {
    if (i > 0 && budget.exhausted()) {
      await settle();
      return { stats, metadataChanged, left: feeds.slice(i) };
    }
    await takeATurn();
    const written: Promise<void> = publishFeed(
      deps,
      feed,
      await records.take(members.get(feed.id)!),
    )
      .then(
        (build) => {
          metadataChanged ||= build.metadataChanged;
          stats = addStats(stats, build);
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => inFlight.delete(written));
    inFlight.add(written);
    if (inFlight.size >= FEEDS_IN_FLIGHT) await Promise.race(inFlight);
    if (failure) await settle();
  }
  await settle();
  return { stats, metadataChanged, left: [] as Feed[] };
}

/** Feeds whose files are being written at once in a pass. */
const FEEDS_IN_FLIGHT = 4;

/** `v2/orgs/<sync_code>/feeds.json`: the organization's feeds. */
export async function publishOrgFeedList(
  deps: PublishDeps,
  organizationId: number,
): Promise<boolean> {
  const org = await findOrganizationById(deps.db, organizationId);
  if (!org) return false;
  const content = {
    feeds: (await listFeeds(deps.db, organizationId)).map((f) => ({
      feed_id: f.feedId,
      name: f.name,
    })),
  };
  const { written } = await writeFeedFile(
    feedFileStore(deps),
    orgFeedListKey(org.syncCode),
    JSON.stringify(content),
    deps.now.toISOString(),
  );
  return written;
}

/** Rebuilds the given feeds (any organizations', unleased: the operator's rebuild), then the feed lists that changed. */
export async function rebuildFeeds(
  deps: PublishDeps,
  feeds: Feed[],
  alsoLists: Iterable<number> = [],
): Promise<PublishStats> {
  let total = noStats();
  const lists = new Set(alsoLists);
  for (const [organizationId, group] of byOrganization(feeds)) {
    const { stats, metadataChanged } = await rebuildTogether(
      deps,
      organizationId,
      group,
      unlimitedBudget,
    );
    if (metadataChanged) lists.add(organizationId);
    total = addStats(total, stats);
  }
  for (const id of lists) await publishOrgFeedList(deps, id);
  return total;
}

function byOrganization(feeds: Feed[]): Map<number, Feed[]> {
  const groups = new Map<number, Feed[]>();
  for (const feed of feeds)
    groups.set(feed.organizationId, [...(groups.get(feed.organizationId) ?? []), feed]);
  return groups;
}

/** How long a rebuild holds a feed; a run that dies holding it lets the next run take it after. */
const LEASE_MS = 2 * 60_000;

/**
 * Rebuilds the given feeds that no other rebuild holds (the lease makes overlapping runs share
 * the work), organization by organization, while the budget lasts; the ones left are given back.
 * Returns the stats and how many were left.
 */
export async function rebuildUnclaimed(
  deps: PublishDeps,
  ids: number[],
  budget: WorkBudget,
  alsoLists: Iterable<number> = [],
) {
  const now = deps.now.toISOString();
  const leaseUntil = new Date(deps.now.getTime() + LEASE_MS).toISOString();
  const claimed = await claimFeeds(deps.db, ids, now, leaseUntil);
  let total = noStats();
  let left = 0;
  const lists = new Set(alsoLists);
  const pending = new Set(claimed.map((f) => f.id));
  try {
    for (const [organizationId, group] of byOrganization(claimed)) {
      if (total.feeds > 0 && budget.exhausted()) {
        left += group.length;
        continue;
      }
      const done = await rebuildTogether(deps, organizationId, group, budget);
      for (const feed of group) if (!done.left.includes(feed)) pending.delete(feed.id);
      if (done.metadataChanged) lists.add(organizationId);
      total = addStats(total, done.stats);
      left += done.left.length;
    }
  } finally {
    // Feeds taken but not built (budget spent, or a failure) go back at once, still dirty.
    await releaseFeeds(deps.db, [...pending], leaseUntil);
  }
  for (const id of lists) await publishOrgFeedList(deps, id);
  return { stats: total, left };
}

/**
 * Rebuilds dirty feeds, oldest mark first, optionally one organization's, while the budget
 * lasts. A feed marked again while it was being rebuilt is dirty again afterwards: the loop
 * takes it once more, so a write during a rebuild is not left for later. `more`: dirty feeds
 * no rebuild holds remain (the caller asks for another pass).
 */
export async function rebuildDirtyFeeds(
  deps: PublishDeps,
  budget: WorkBudget,
  organizationId?: number,
  alsoLists: Iterable<number> = [],
) {
  const now = deps.now.toISOString();
  let total = noStats();
  let lists = alsoLists;
  while (total.feeds === 0 || !budget.exhausted()) {
    const ids = await dirtyFeedIds(deps.db, PASS_FEEDS, now, organizationId);
    const round = await rebuildUnclaimed(deps, ids, budget, lists);
    lists = [];
    total = addStats(total, round.stats);
    if (round.stats.feeds === 0 || round.left > 0) break;
  }
  const more = (await dirtyFeedIds(deps.db, 1, now, organizationId)).length > 0;
  return { ...total, more };
}
