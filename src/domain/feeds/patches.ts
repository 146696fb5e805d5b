// A write's feed work in proportion to what it changed. A change of a video marks the feeds
// that held it or hold it now with its id (membership.ts#markFeedsOfVideos); their next build
// patches the files rather than rebuilding them from the feed's query: it reads the two video
// files and their layout (what each entry is and how long, db/schema-feeds.ts), takes out the
// entries of the changed videos, puts in their new entries where their order says (only those
// that are members now), and writes the files back. A title edit thus replaces one entry; a tag
// change adds or takes out the entry where membership changed. The other entries' text is kept
// as it is, so a patched file is the text a full rebuild would write (test/feeds-patches.test.ts
// holds every patch to that). Only when a member must come from beyond the last entry (one
// went out of a full feed) does a patch read the catalog past it.
//
// A patch gives way to a full rebuild whenever it cannot be sure of the files: no layout (never
// built since this came in), another FEED_MAX_VIDEOS or origin, files other than the layout
// describes (a hash differs: a write cut short, an operator's rebuild), or too many changed
// videos (PATCH_IDS_MAX). The cron's reconcile slice always rebuilds in full, which repairs
// whatever drift a patch could not see.
import { listableContentsByIds, publishedVideoNames } from "../../db/feed-sources";
import { feedLayoutsOf } from "../../db/feeds";
import type { Content, Feed } from "../../db/schema";
import type { FeedLayout } from "../../db/schema-feeds";
import { feedFileKeys, readFeedFile } from "../../storage/feed-files";
import {
  countCategories,
  type Entry,
  type FeedBuild,
  feedFileStore,
  newerFirst,
  originsOf,
  type PublishDeps,
  publishEach,
  type RenderedEntry,
  renderEntry,
} from "./builds";
import { feedMembership, holds } from "./membership";
import type { WorkBudget } from "./work";

/** Whether the feed's next build is a patch (it waits for videos' entries, not for a rebuild). */
export const waitsForPatch = (feed: Feed): boolean =>
  feed.dirtySince !== null && feed.patchIds !== null;

const VIDEOS = '"videos":[';

/**
 * The entries' texts in one video file, cut where the layout says they lie (a file's content is
 * its head, `"videos":[`, the entries joined by commas, `]}`); null when the text is not so laid.
 */
export function cutEntries(content: string, lengths: readonly number[]): string[] | null {
  const body = lengths.reduce((n, l) => n + l, 0) + Math.max(0, lengths.length - 1);
  const start = content.length - 2 - body;
  if (start < VIDEOS.length || !content.endsWith("]}")) return null;
  if (content.slice(start - VIDEOS.length, start) !== VIDEOS) return null;
  const out: string[] = [];
  let at = start;
  for (const [i, length] of lengths.entries()) {
    const text = content.slice(at, at + length);
    if (text[0] !== "{" || text[length - 1] !== "}") return null;
    if (i < lengths.length - 1 && content[at + length] !== ",") return null;
    out.push(text);
    at += length + 1;
  }
  return out;
}

/** Members of the feed older than `after`, at most `need`, rendered (the feed's next entries). */
export type Beyond = (
  after: Pick<Entry, "id" | "publishedAt">,
  need: number,
) => Promise<RenderedEntry[]>;

/**
 * The feed's build after its changed videos are patched into the entries it had. `changed`:
 * each changed video's entry as a member now, or null (not a member now, or gone). `old`: the
 * layout's entries with their texts. The result is the entries a full rebuild would list now,
 * provided nothing else changed since the layout's build (each change marks its videos).
 */
export async function patchedBuild(
  layout: FeedLayout,
  old: Entry[],
  changed: ReadonlyMap<number, RenderedEntry | null>,
  max: number,
  beyond: Beyond,
): Promise<FeedBuild> {
  const serviceCategories = { ...layout.serviceCategories };
  const takeOut = (e: Entry) =>
    countCategories(
      serviceCategories,
      (JSON.parse(e.legacy) as { categories: string[] }).categories,
      -1,
    );
  const kept: Entry[] = [];
  for (const e of old) {
    if (changed.has(e.id)) takeOut(e);
    else kept.push(e);
  }
  const added = [...changed.values()]
    .filter((e): e is RenderedEntry => e !== null)
    .sort(newerFirst);
  // The two lists merged, each in order already.
  let merged: Entry[] = [];
  for (let i = 0, j = 0; i < kept.length || j < added.length; ) {
    if (j >= added.length || (i < kept.length && newerFirst(kept[i]!, added[j]!) < 0))
      merged.push(kept[i++]!);
    else merged.push(added[j++]!);
  }
  const tail = old.at(-1);
  let complete = layout.complete;
  let fetched: RenderedEntry[] = [];
  if (!layout.complete && tail) {
    // Past the last entry lie members the layout does not know: whatever this patch would put
    // there comes from the catalog instead, in its order (it sees the changed videos as they are).
    merged = merged.filter((e) => newerFirst(e, tail) <= 0);
    if (merged.length < max) {
      const need = max - merged.length;
      fetched = await beyond(tail, need);
      complete = fetched.length < need;
    }
  }
  const entries: (Entry | RenderedEntry)[] = [...merged, ...fetched];
  if (entries.length > max) complete = false;
  // Kept entries are counted in the layout's categories already; new ones are not.
  const isNew = (e: Entry | RenderedEntry): e is RenderedEntry => "serviceCategories" in e;
  for (const e of entries.slice(max)) if (!isNew(e)) takeOut(e);
  const listed = entries.slice(0, max);
  for (const e of listed) if (isNew(e)) countCategories(serviceCategories, e.serviceCategories, 1);
  return { entries: listed, serviceCategories, complete };
}

/** Videos per query when a patch reads members past a feed's last entry. */
const BEYOND_PAGE = 500;

/**
 * Patches the organization's feeds that wait for patches, while the budget lasts (at least one
 * unless `started`): the changed videos are read once for all of them, and each video's entry
 * rendered once. Feeds a patch cannot be sure of are `refused`: the caller rebuilds them.
 */
export async function patchFeeds(
  deps: PublishDeps,
  organizationId: number,
  feeds: Feed[],
  budget: WorkBudget,
  started: boolean,
) {
  const now = deps.now.toISOString();
  // What a feed of the organization may publish now (listable, window open or none).
  const publishable = { organizationId, now };
  const max = deps.config.feedMaxVideos;
  const store = feedFileStore(deps);
  const ids = [...new Set(feeds.flatMap((f) => f.patchIds ?? []))];
  const rows = new Map<number, Content>();
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    for (const row of await listableContentsByIds(deps.db, slice, publishable))
      rows.set(row.id, row);
  }
  const rendered = new Map<number, RenderedEntry>();
  const entryOf = (row: Content) => {
    let e = rendered.get(row.id);
    if (!e) rendered.set(row.id, (e = renderEntry(row, deps.origins)));
    return e;
  };
  const layouts = await feedLayoutsOf(
    deps.db,
    feeds.map((f) => f.id),
  );
  const origins = originsOf(deps.origins);

  const buildOf = async (feed: Feed): Promise<FeedBuild | null> => {
    const layout = layouts.get(feed.id);
    const keys = feedFileKeys(feed.feedId);
    if (
      !layout ||
      layout.format !== 1 ||
      layout.max !== max ||
      layout.origins !== origins ||
      layout.hashes.legacy !== feed.files[keys.legacy] ||
      layout.hashes.videos !== feed.files[keys.videos]
    )
      return null;
    const [legacy, videos] = await Promise.all([
      readFeedFile(store, keys.legacy),
      readFeedFile(store, keys.videos),
    ]);
    if (legacy?.hash !== layout.hashes.legacy || videos?.hash !== layout.hashes.videos) return null;
    const legacyTexts = cutEntries(
      legacy.content,
      layout.entries.map((e) => e[2]),
    );
    const v2Texts = cutEntries(
      videos.content,
      layout.entries.map((e) => e[3]),
    );
    if (!legacyTexts || !v2Texts) return null;
    const old: Entry[] = layout.entries.map(([id, publishedAt], i) => ({
      id,
      publishedAt,
      legacy: legacyTexts[i]!,
      v2: v2Texts[i]!,
    }));
    if (!layout.complete && old.length === 0) return null;
    const membership = feedMembership(feed);
    const changed = new Map<number, RenderedEntry | null>();
    for (const id of feed.patchIds ?? []) {
      const row = rows.get(id);
      changed.set(id, row && holds(membership, row) ? entryOf(row) : null);
    }
    const beyond: Beyond = async (after, need) => {
      const found: RenderedEntry[] = [];
      let from: Pick<Content, "id" | "publishedAt"> = after;
      for (;;) {
        const page = await publishedVideoNames(deps.db, organizationId, now, from, BEYOND_PAGE);
        const members = page.filter((v) => holds(membership, v)).slice(0, need - found.length);
        const fetched = new Map(
          (
            await listableContentsByIds(
              deps.db,
              members.map((v) => v.id),
              publishable,
            )
          ).map((r) => [r.id, r]),
        );
        for (const v of members) {
          const row = fetched.get(v.id);
          if (row) found.push(entryOf(row));
        }
        if (found.length >= need || page.length < BEYOND_PAGE) return found;
        from = page.at(-1)!;
      }
    };
    return patchedBuild(layout, old, changed, max, beyond);
  };
  const done = await publishEach(deps, feeds, budget, started, buildOf);
  return { ...done, stats: { ...done.stats, patched: done.stats.feeds } };
}
