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
import { claimFeeds, dirtyFeedIds, listFeeds, nextPatchWait, releaseFeeds } from "../../db/feeds";
import { findOrganizationById } from "../../db/organizations";
import type { Content, Feed } from "../../db/schema";
import { orgFeedListKey, writeFeedFile } from "../../storage/feed-files";
import {
  addStats,
  countCategories,
  type FeedBuild,
  feedFileStore,
  noStats,
  type PublishDeps,
  type PublishStats,
  publishEach,
  type RenderedEntry,
  renderEntry,
} from "./builds";
import { feedMembership, holds } from "./membership";
import { patchFeeds, waitsForPatch } from "./patches";
import { unlimitedBudget, type WorkBudget } from "./work";

export { addStats, feedFileStore, noStats, type PublishDeps, type PublishStats };

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
 * The records a pass needs, each fetched and rendered once: a record's entry is kept while a
 * feed still to be built lists it, and let go after the last one (so memory holds what is
 * still needed, not the union).
 */
class SharedRecords {
  private readonly rendered = new Map<number, RenderedEntry>();
  private readonly uses = new Map<number, number>();

  constructor(
    private readonly deps: PublishDeps,
    memberLists: Iterable<number[]>,
  ) {
    for (const ids of memberLists)
      for (const id of ids) this.uses.set(id, (this.uses.get(id) ?? 0) + 1);
  }

  /**
   * A feed's build from its members' ids (a video no longer listable is left out); `complete`:
   * the walk found fewer members than the feed may list.
   */
  async take(ids: number[], complete: boolean): Promise<FeedBuild> {
    const missing = ids.filter((id) => !this.rendered.has(id));
    for (let i = 0; i < missing.length; i += FETCH_BATCH) {
      for (const row of await listableContentsByIds(
        this.deps.db,
        missing.slice(i, i + FETCH_BATCH),
      ))
        this.rendered.set(row.id, renderEntry(row, this.deps.origins));
    }
    const build: FeedBuild = { entries: [], serviceCategories: {}, complete };
    for (const id of ids) {
      const entry = this.rendered.get(id);
      if (!entry) continue;
      build.entries.push(entry);
      countCategories(build.serviceCategories, entry.serviceCategories, 1);
    }
    for (const id of ids) {
      const left = (this.uses.get(id) ?? 1) - 1;
      if (left > 0) this.uses.set(id, left);
      else {
        this.uses.delete(id);
        this.rendered.delete(id);
      }
    }
    // A video missing from the fetch (deleted or hidden meanwhile) is not fetched again.
    for (const id of missing) if (!this.rendered.has(id)) this.uses.delete(id);
    return build;
  }
}

/**
 * Rebuilds feeds of one organization together (one walk, each record fetched once) while the
 * budget lasts, at least one unless `started` (feeds were built before in the same pass).
 * Returns the stats, the feeds left unbuilt, and whether a feed's metadata file changed (the
 * organization's feed list may need republishing).
 */
async function rebuildTogether(
  deps: PublishDeps,
  organizationId: number,
  feeds: Feed[],
  budget: WorkBudget,
  started = false,
) {
  if (feeds.length === 0) return { stats: noStats(), metadataChanged: false, left: [] as Feed[] };
  const max = deps.config.feedMaxVideos;
  const members = await membersOf(deps, organizationId, feeds);
  const records = new SharedRecords(deps, members.values());
  return publishEach(deps, feeds, budget, started, async (feed) => {
    const ids = members.get(feed.id)!;
    return records.take(ids, ids.length < max);
  });
}

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
 * Builds the given feeds that no other build holds (the lease makes overlapping runs share the
 * work), organization by organization, while the budget lasts; the ones left are given back.
 * A feed waiting for its videos' entries is patched (patches.ts), unless `full` (the cron's
 * reconcile slice) or the patch cannot be sure of its files; the others are rebuilt together.
 * Returns the stats and how many were left.
 */
export async function rebuildUnclaimed(
  deps: PublishDeps,
  ids: number[],
  budget: WorkBudget,
  alsoLists: Iterable<number> = [],
  { full = false }: { full?: boolean } = {},
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
      const patchable = full ? [] : group.filter(waitsForPatch);
      const patched = await patchFeeds(deps, organizationId, patchable, budget, total.feeds > 0);
      total = addStats(total, patched.stats);
      const rest = [...group.filter((f) => !patchable.includes(f)), ...patched.refused];
      const rebuilt =
        patched.left.length > 0
          ? { stats: noStats(), metadataChanged: false, left: rest }
          : await rebuildTogether(deps, organizationId, rest, budget, total.feeds > 0);
      const unbuilt = [...patched.left, ...rebuilt.left];
      for (const feed of group) if (!unbuilt.includes(feed)) pending.delete(feed.id);
      if (patched.metadataChanged || rebuilt.metadataChanged) lists.add(organizationId);
      total = addStats(total, rebuilt.stats);
      left += unbuilt.length;
    }
  } finally {
    // Feeds taken but not built (budget spent, or a failure) go back at once, still dirty.
    await releaseFeeds(deps.db, [...pending], leaseUntil);
  }
  for (const id of lists) await publishOrgFeedList(deps, id);
  return { stats: total, left };
}

/** The time before which a feed waiting for patches must have started to be due now. */
export function patchesDueBy(deps: Pick<PublishDeps, "now" | "config">): string {
  return new Date(deps.now.getTime() - deps.config.feedPatchDelaySeconds * 1000).toISOString();
}

/**
 * Builds due dirty feeds, oldest mark first, optionally one organization's, while the budget
 * lasts. A feed marked again while it was being built is dirty again afterwards: one waiting
 * for a rebuild is taken again at once, one waiting for patches once FEED_PATCH_DELAY_SECONDS
 * have passed since (so writes at one a second make a pass every few seconds, not back to back).
 * `more`: due dirty feeds no build holds remain (the caller asks for another pass); `dueInMs`:
 * with none due, when the organization's next one waiting for patches will be (null: none).
 */
export async function rebuildDirtyFeeds(
  deps: PublishDeps,
  budget: WorkBudget,
  organizationId?: number,
  alsoLists: Iterable<number> = [],
) {
  const now = deps.now.toISOString();
  const dueBy = patchesDueBy(deps);
  let total = noStats();
  let lists = alsoLists;
  while (total.feeds === 0 || !budget.exhausted()) {
    const ids = await dirtyFeedIds(deps.db, PASS_FEEDS, now, organizationId, dueBy);
    const round = await rebuildUnclaimed(deps, ids, budget, lists);
    lists = [];
    total = addStats(total, round.stats);
    if (round.stats.feeds === 0 || round.left > 0) break;
  }
  const more = (await dirtyFeedIds(deps.db, 1, now, organizationId, dueBy)).length > 0;
  let dueInMs: number | null = null;
  if (!more && organizationId !== undefined) {
    const waiting = await nextPatchWait(deps.db, now, organizationId);
    if (waiting !== null)
      dueInMs = Math.max(
        0,
        Date.parse(waiting) + deps.config.feedPatchDelaySeconds * 1000 - deps.now.getTime(),
      );
  }
  return { ...total, more, dueInMs };
}
