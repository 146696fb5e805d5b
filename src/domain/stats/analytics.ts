// E7 GET /v2/analytics/{type}: sums of the chosen counters per content key over the range
// (summary), per UTC day and content key (detailed) or per UTC day (daily, for charts), paged
// like E6. Every mode reads the totals the consumer keeps (never the dimensioned daily rows):
// summary two running totals rows per key (its last on or before the range's end, its last
// before the start: schema.ts runningTotals), detailed the day totals, daily the organization's
// day totals (or the day totals of the selected videos). A page of summary or detailed reads the
// rows up to its end, in key (day) order on an index, not the whole range; the exact count,
// which must read the whole range, is given where it is known anyway and otherwise only when
// asked for (includeCount=1).

import type { Db } from "../../db/client";
import type { Entitlement } from "../../db/schema";
import { byKeyParts, type ContentSelection, selectContentKeys } from "../../db/stats/catalog-keys";
import type { StatsDb } from "../../db/stats/client";
import { ROLLUPS, type Rollup } from "../../db/stats/rollups";
import { statsDbOf } from "../../db/stats/shards";
import {
  contentKeysWithTotals,
  countDayTotals,
  countWithRunningTotals,
  dayTotalsPage,
  runningTotalsOf,
  runningTotalsPage,
  type Totals,
  type TotalsRow,
  type TotalsScope,
  totalsPerDay,
  walkKeysWithStatistics,
} from "../../db/stats/totals";
import type { AnalyticsType } from "../../schemas/reports";
import { DAY_MS, dayRange, dayStart, endOfDay, utcDay } from "../../shared/dates";
import { invalid } from "../../shared/errors";
import type { Dependency } from "../../shared/versions";
import { type Requester, type VideoFilterParams, videoQuery } from "../catalog/video-query";
import { requireEntitlement } from "../entitlements";

interface TypeSpec {
  rollup: Rollup;
  /** The entitlement of the report showing the same rows (E8, E10, E12); ads, like E11, needs none. */
  entitlement: Entitlement | null;
  liveOnly: boolean;
}

const TYPES: Record<AnalyticsType, TypeSpec> = {
  video: { rollup: ROLLUPS.video, entitlement: "enterprise_player", liveOnly: false },
  livestream: { rollup: ROLLUPS.video, entitlement: "enterprise_player", liveOnly: true },
  ads: { rollup: ROLLUPS.ad, entitlement: null, liveOnly: false },
  viewers: { rollup: ROLLUPS.viewer, entitlement: "viewer_analytics", liveOnly: false },
  ecommerce: { rollup: ROLLUPS.ecommerce, entitlement: "ecommerce", liveOnly: false },
};

/** The spec's short names of E7 metrics. */
const FIELD_ALIASES: Record<string, string> = { played_1: "played_1s", played_30: "played_30s" };

export interface AnalyticsParams
  extends Omit<VideoFilterParams, "networkVideos" | "watchedByTput"> {
  summary?: string;
  detailed?: string;
  daily?: string;
  startDate: string;
  endDate: string;
  fields?: string | string[];
  networkVideos?: "0" | "1";
  includeCount?: "0" | "1";
  page: number;
  pageSize: number;
}

/** `?summary`, `?summary=1`, `?summary=true` select it; absent, 0 or false do not. */
const selected = (v: string | undefined) =>
  v !== undefined && v !== "0" && v.toLowerCase() !== "false";

type Mode = "summary" | "detailed" | "daily";

function modeOf(q: AnalyticsParams): Mode {
  const modes = (["summary", "detailed", "daily"] as const).filter((m) => selected(q[m]));
  if (modes.length !== 1) throw invalid("summary, detailed, daily: give exactly one of them");
  return modes[0]!;
}

function parseFields(
  type: AnalyticsType,
  counters: readonly string[],
  fields: string | string[] | undefined,
): string[] {
  if (fields === undefined) return [...counters];
  const names = (Array.isArray(fields) ? fields : [fields])
    .flatMap((f) => f.split(","))
    .map((f) => f.trim())
    .filter(Boolean);
  if (names.length === 0) throw invalid("fields: must name at least one metric");
  const known = new Set(counters);
  const out: string[] = [];
  for (const name of names) {
    const field = FIELD_ALIASES[name] ?? name;
    if (!known.has(field))
      throw invalid(
        `fields: unknown metric ${JSON.stringify(name)} for type ${type}; allowed: played_1, played_30, ${counters.join(", ")}`,
      );
    if (!out.includes(field)) out.push(field);
  }
  return out;
}

const E6_FILTERS = [
  "feedId",
  "mmi",
  "searchString",
  "categories",
  "customFields",
  "events",
  "tags",
] as const;

/** Whether the query selects videos the way E6 does (an E6 filter, or network videos): the catalog then decides which count. */
export function selectsVideos(
  q: Partial<Record<(typeof E6_FILTERS)[number] | "networkVideos", string>>,
): boolean {
  return E6_FILTERS.some((f) => q[f] !== undefined) || q.networkVideos === "1";
}

/**
 * What E7 reads besides statistics rows: the catalog when an E6 filter or type livestream
 * selects videos, the network's catalog with networkVideos=1.
 */
export function analyticsDependsOn(
  type: string,
  q: Parameters<typeof selectsVideos>[0],
): Dependency[] {
  return [
    "statistics",
    ...(type === "livestream" || selectsVideos(q) ? (["catalog"] as const) : []),
    ...(q.networkVideos === "1" ? (["network"] as const) : []),
  ];
}

/**
 * Which videos count. Without an E6 filter (and without an MMI scope): every content key of the
 * organization with statistics, removed and deleted videos included, like the reports (null).
 * With one: the videos E6 would list with those filters. Livestream: only content with isLive.
 * Statistics are always the organization's own (network videos' belong to their owners).
 */
async function contentSelection(
  r: Requester,
  spec: TypeSpec,
  q: AnalyticsParams,
): Promise<ContentSelection | null> {
  const filtered = selectsVideos(q) || r.caller.subOrg !== null;
  if (!filtered) return spec.liveOnly ? { liveOf: r.caller.org.id } : null;
  const query = await videoQuery(r, {
    feedId: q.feedId,
    mmi: q.mmi,
    networkVideos: q.networkVideos === "1",
    searchString: q.searchString,
    categories: q.categories,
    customFields: q.customFields,
    events: q.events,
    tags: q.tags,
  });
  return { query: { ...query, liveOnly: spec.liveOnly } };
}

/** Adds the counters of `row` to `into` (rows of the same day from several key parts). */
function addCounters(into: TotalsRow, row: TotalsRow, counters: readonly string[]): void {
  for (const c of counters) into[c] = Number(into[c] ?? 0) + Number(row[c] ?? 0);
}

/**
 * Keys walked per round trip while filling a filtered summary page: the first stretch serves a
 * selection that takes most keys in one trip; a sparse one walks on in longer stretches (each key
 * walked costs two rows, as reading them all at once would).
 */
const FIRST_STRETCH = 1000;
const LONGEST_STRETCH = 16_000;

/**
 * The content keys with statistics in the range that the selection takes, in key order, until
 * `wanted` are found or the keys run out (`complete`: every one was seen).
 */
export async function selectedKeysUpTo(
  db: Db,
  stats: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  selection: ContentSelection,
  wanted: number,
  stretches = { first: FIRST_STRETCH, longest: LONGEST_STRETCH },
) {
  const keys: string[] = [];
  let after = scope.after;
  for (let stretch = stretches.first; ; stretch = Math.min(stretch * 4, stretches.longest)) {
    const walked = await walkKeysWithStatistics(stats, totals, { ...scope, after }, stretch);
    const taken = await selectContentKeys(db, selection, walked.keys);
    keys.push(...walked.keys.filter((k) => taken.has(k)));
    if (walked.last === null) return { keys, complete: true };
    if (keys.length >= wanted) return { keys, complete: false };
    after = walked.last;
  }
}

/** Every content key with statistics in the range that the selection takes, in key order. */
async function allSelectedKeys(
  db: Db,
  stats: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  selection: ContentSelection,
): Promise<string[]> {
  const withStatistics = await contentKeysWithTotals(stats, totals, scope);
  const taken = await selectContentKeys(db, selection, withStatistics);
  return withStatistics.filter((k) => taken.has(k));
}

export async function analytics(r: Requester, type: AnalyticsType, q: AnalyticsParams) {
  const spec = TYPES[type];
  if (spec.entitlement)
    requireEntitlement(r.caller.org, spec.entitlement, `analytics of type ${type}`);
  const mode = modeOf(q);
  const range = dayRange(q.startDate, q.endDate, { start: "startDate", end: "endDate" });
  const counters = parseFields(type, spec.rollup.counters, q.fields);
  const stats = statsDbOf(r.db, r.caller.org);
  const totals = spec.rollup.totals;
  const scope: TotalsScope = {
    organizationId: r.caller.org.id,
    start: range.start,
    end: range.end,
    contentKey: q.contentKey,
  };
  const page = { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
  // One row past the page tells whether another page follows.
  const probe = { limit: page.limit + 1, offset: page.offset };
  /** The page's items of a list that starts at `from` (0: the list starts at the page), and whether more follow. */
  const cut = <T>(list: T[], from: number) => ({
    items: list.slice(from, from + page.limit),
    hasMore: list.length > from + page.limit,
  });
  const withCount = q.includeCount === "1";

  // With a selection: the keys with statistics in the range, then the catalog keeps the ones it
  // selects (one query per KEYS_PER_PARAMETER keys, keys in and keys out). A summary page walks
  // the keys in order instead, until the page is full, unless the selection proves sparse;
  // detailed and daily, and a count asked for, need every key the selection takes.
  const selection = await contentSelection(r, spec, q);
  let keys: string[] | null = null;
  let walked: { keys: string[]; complete: boolean } | null = null;
  if (selection && mode === "summary" && !withCount)
    walked = await selectedKeysUpTo(
      r.db,
      stats,
      totals,
      scope,
      selection,
      probe.offset + probe.limit,
    );
  if (selection && !walked) keys = await allSelectedKeys(r.db, stats, totals, scope, selection);

  // count where it is known anyway (the days of daily, every key a selection takes once they
  // were all read) or asked for (includeCount=1: it reads every totals row of the range); else
  // on the last page below.
  let count: number | undefined;
  let rows: TotalsRow[];
  let hasMore: boolean;
  if (mode === "summary") {
    // Each key's sums are two running totals rows (its last on or before the end, its last before the start).
    if (keys || walked) {
      const list = keys ?? walked!.keys;
      if (keys || walked!.complete) count = list.length;
      let pageKeys: string[];
      ({ items: pageKeys, hasMore } = cut(list, page.offset));
      rows = await runningTotalsOf(stats, totals, { ...scope, keys: pageKeys }, counters);
    } else {
      const [found, counted] = await Promise.all([
        runningTotalsPage(stats, totals, scope, counters, probe),
        withCount ? countWithRunningTotals(stats, totals, scope) : undefined,
      ]);
      count = counted;
      ({ items: rows, hasMore } = cut(found, 0));
    }
  } else if (mode === "detailed") {
    if (keys) {
      // Each part gives its first offset + limit + 1 rows in (day, key) order; merged, then the page.
      const parts = await byKeyParts(keys, async (part) => [
        await Promise.all([
          dayTotalsPage(stats, totals, { ...scope, keys: part }, counters, {
            limit: probe.offset + probe.limit,
            offset: 0,
          }),
          withCount ? countDayTotals(stats, totals, { ...scope, keys: part }) : 0,
        ]),
      ]);
      if (withCount) count = parts.reduce((n, [, c]) => n + c, 0);
      const merged = parts
        .flatMap(([list]) => list)
        .sort((a, b) =>
          a.date === b.date
            ? a.content_key! < b.content_key!
              ? -1
              : 1
            : a.date! < b.date!
              ? -1
              : 1,
        );
      ({ items: rows, hasMore } = cut(merged, page.offset));
    } else {
      const [found, counted] = await Promise.all([
        dayTotalsPage(stats, totals, scope, counters, probe),
        withCount ? countDayTotals(stats, totals, scope) : undefined,
      ]);
      count = counted;
      ({ items: rows, hasMore } = cut(found, 0));
    }
  } else {
    const perDay = new Map<string, TotalsRow>();
    const add = (list: TotalsRow[]) => {
      for (const row of list)
        addCounters(
          perDay.get(row.date as string) ??
            perDay.set(row.date as string, { date: row.date! }).get(row.date as string)!,
          row,
          counters,
        );
    };
    // Every day of the range, zeros where nothing counted: a chart's x axis. Only the page's days are read.
    const days = Array.from({ length: range.days }, (_, i) =>
      utcDay(dayStart(range.start)! + i * DAY_MS),
    );
    const { items: pageDays, hasMore: more } = cut(days, page.offset);
    hasMore = more;
    if (pageDays.length > 0) {
      const pageScope = { ...scope, start: pageDays[0]!, end: pageDays.at(-1)! };
      if (keys)
        for (const part of await byKeyParts(keys, async (k) => [
          await totalsPerDay(stats, totals, { ...pageScope, keys: k }, counters),
        ]))
          add(part);
      else add(await totalsPerDay(stats, totals, pageScope, counters));
    }
    count = days.length;
    rows = pageDays.map((day) => perDay.get(day) ?? { date: day });
  }
  // The last page knows the count: the rows before it and its own (a page past the end does not).
  if (count === undefined && !hasMore && (rows.length > 0 || page.offset === 0))
    count = page.offset + rows.length;

  const data = rows.map((row) => {
    const out: Record<string, string | number> =
      mode === "summary"
        ? { contentKey: row.content_key!, startDate: range.start, endDate: range.end }
        : mode === "detailed"
          ? { date: endOfDay(row.date as string), contentKey: row.content_key! }
          : { date: endOfDay(row.date as string) };
    for (const c of counters) out[c] = Number(row[c] ?? 0);
    return out;
  });
  return {
    ...(count === undefined ? {} : { count }),
    hasMore,
    message: "ok",
    page: q.page,
    pageSize: q.pageSize,
    data,
  };
}
