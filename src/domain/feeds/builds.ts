// What every build of a feed's files shares, full or patched: a video's entry as each file
// lists it (rendered once per pass, whatever the number of feeds listing it), the files' texts
// from their entries, and writing them with the layout a later patch finds the entries by.
import { recordFeedBuild } from "../../db/feeds";
import type { Content, Feed } from "../../db/schema";
import type { FeedLayout } from "../../db/schema-feeds";
import { objectWithArray } from "../../shared/json-text";
import { type FeedFileStore, feedFileKeys, writeFeedFile } from "../../storage/feed-files";
import { recordSubtitles, thumbnailOf, v2Record } from "../catalog/records";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { feedMetadata } from "./membership";
import type { WorkBudget } from "./work";

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
  /** Of the feeds, those patched (patches.ts) rather than rebuilt from their query. */
  patched: number;
  written: number;
  unchanged: number;
}

export const noStats = (): PublishStats => ({ feeds: 0, patched: 0, written: 0, unchanged: 0 });

export function addStats(a: PublishStats, b: PublishStats): PublishStats {
  return {
    feeds: a.feeds + b.feeds,
    patched: a.patched + b.patched,
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

/** A video's entry in a feed's two video files: what orders it, and its JSON text in each. */
export interface Entry {
  id: number;
  publishedAt: string;
  legacy: string;
  v2: string;
}

/** The entry of a video, with the service categories the legacy file's head collects. */
export interface RenderedEntry extends Entry {
  serviceCategories: readonly string[];
}

export function renderEntry(row: Content, origins: PublishDeps["origins"]): RenderedEntry {
  return {
    id: row.id,
    // Listable videos always have one (set when they become available).
    publishedAt: row.publishedAt ?? "",
    legacy: JSON.stringify(legacyFeedRecord(row, origins)),
    v2: JSON.stringify(v2FeedRecord(row, origins)),
    serviceCategories: row.serviceCategories,
  };
}

/** Newest first, then the highest id: a feed's order, as SQLite compares the text (binary). */
export function newerFirst(a: Pick<Entry, "id" | "publishedAt">, b: typeof a): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt > b.publishedAt ? -1 : 1;
  return b.id - a.id;
}

/** What a build writes: a feed's entries in file order, and what the legacy head needs. */
export interface FeedBuild {
  entries: Entry[];
  /** The entries' service categories, with how many entries carry each. */
  serviceCategories: Record<string, number>;
  /** No member of the feed lies beyond the last entry. */
  complete: boolean;
}

/** Counts each entry's service categories into `counts` (`sign` -1 takes them out). */
export function countCategories(
  counts: Record<string, number>,
  categories: readonly string[],
  sign: 1 | -1,
): void {
  for (const c of categories) {
    const n = (counts[c] ?? 0) + sign;
    if (n > 0) counts[c] = n;
    else delete counts[c];
  }
}

/** `<feed_id>-feed.json` (spec 2.4, the older feed file), as JSON text. */
function legacyFeedFile(feed: Feed, build: FeedBuild): string {
  const head = {
    feed_id: feed.feedId,
    name: feed.name,
    categories: Object.keys(build.serviceCategories).sort(),
    privateCategories: feed.categories,
    privateTags: feed.tags,
    events: feed.events,
  };
  return objectWithArray(
    head,
    "videos",
    build.entries.map((e) => e.legacy),
  );
}

/** `v2/feeds/<id>/videos.json`: the v2 records, as JSON text. */
function v2FeedFile(build: FeedBuild): string {
  return objectWithArray(
    {},
    "videos",
    build.entries.map((e) => e.v2),
  );
}

/** The origins a layout's entries were rendered with: another origin is a rebuild. */
export const originsOf = (o: PublishDeps["origins"]) => `${o.baseUrl} ${o.staticUrl}`;

/**
 * Writes one feed's three files from its build (only those whose content changed), records the
 * build with the layout of what it wrote, and emits feed.published when a file changed.
 */
export async function publishFeed(
  deps: PublishDeps,
  feed: Feed,
  build: FeedBuild,
): Promise<PublishStats & { metadataChanged: boolean }> {
  const now = deps.now.toISOString();
  const keys = feedFileKeys(feed.feedId);
  const files: [string, string][] = [
    [keys.legacy, legacyFeedFile(feed, build)],
    [keys.videos, v2FeedFile(build)],
    [keys.metadata, JSON.stringify(feedMetadata(feed))],
  ];
  const state: Feed["files"] = {};
  const stats = { ...noStats(), feeds: 1, metadataChanged: false };
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
  const layout: FeedLayout = {
    format: 1,
    max: deps.config.feedMaxVideos,
    complete: build.complete,
    origins: originsOf(deps.origins),
    hashes: { legacy: state[keys.legacy]!, videos: state[keys.videos]! },
    serviceCategories: build.serviceCategories,
    entries: build.entries.map((e) => [e.id, e.publishedAt, e.legacy.length, e.v2.length]),
  };
  await recordFeedBuild(deps.db, feed, state, now, layout);
  if (stats.written > 0) {
    // Webhook feed.published: the feed's files were rewritten (unchanged files are not).
    const urls = Object.fromEntries(
      Object.entries(keys).map(([name, key]) => [name, `${deps.origins.staticUrl}/${key}`]),
    );
    await emitWebhookEvent(deps, feed, "feed.published", {
      feed_id: feed.feedId,
      name: feed.name,
      videos: build.entries.length,
      files: urls,
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
export function turnTaker() {
  let last = Date.now();
  return async () => {
    // Date.now() moves at each I/O in workerd: the time since the last turn, to the last read or write.
    if (Date.now() - last < YIELD_EVERY_MS) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    last = Date.now();
  };
}

/** Feeds whose files are being written at once in a pass. */
const FEEDS_IN_FLIGHT = 4;

/**
 * Publishes feeds one after another from what `buildOf` makes of each (null: it cannot, the
 * feed is `refused` and left to the caller), while the budget lasts: at least one feed unless
 * `started` (the pass built feeds before). Up to FEEDS_IN_FLIGHT feeds are written at once: the
 * next feed is put together while the previous ones' files travel to R2. The first failure
 * fails the pass once the feeds in flight are done (the unbuilt ones stay dirty).
 */
export async function publishEach(
  deps: PublishDeps,
  feeds: Feed[],
  budget: WorkBudget,
  started: boolean,
  buildOf: (feed: Feed) => Promise<FeedBuild | null>,
) {
  let stats = noStats();
  let metadataChanged = false;
  const refused: Feed[] = [];
  const takeATurn = turnTaker();
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const settle = async () => {
    await Promise.all(inFlight);
    if (failure) throw failure.error;
  };
  for (const [i, feed] of feeds.entries()) {
    if ((started || i > 0) && budget.exhausted()) {
      await settle();
      return { stats, metadataChanged, refused, left: feeds.slice(i) };
    }
    await takeATurn();
    const build = await buildOf(feed);
    if (!build) {
      refused.push(feed);
      continue;
    }
    started = true;
    const written: Promise<void> = publishFeed(deps, feed, build)
      .then(
        (built) => {
          metadataChanged ||= built.metadataChanged;
          stats = addStats(stats, built);
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
  return { stats, metadataChanged, refused, left: [] as Feed[] };
}
