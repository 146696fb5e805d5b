// Reports E8–E12 (spec 4.3): statistics rows as spec 2.5 names them, `date` at the end of its
// UTC day, ranges inclusive. Reports show every content key with statistics, also removed
// videos (removed: true) and deleted ones (their statistics stay; the video record is gone).
import type { Db } from "../../db/client";
import { contentsByKey } from "../../db/content";
import type { Content, Syndication } from "../../db/schema";
import type { StatsDb } from "../../db/stats/client";
import { listEcommerceItems } from "../../db/stats/ecommerce-items";
import {
  adRows,
  ecommerceKeysInScope,
  ecommerceRows,
  groupedVideoRows,
  keysInSql,
  rankByDimension,
  type StatsRow,
  type StatsScope,
  type VideoDimension,
  videoRows,
  viewerRows,
} from "../../db/stats/reports";
import { ROLLUPS, type Rollup } from "../../db/stats/rollups";
import { statsDbOf } from "../../db/stats/shards";
import { dayTotalsOf, rankByLifetime, rankByTotal } from "../../db/stats/totals";
import { syndicationsOf } from "../../db/syndications";
import {
  COMBINED_FIELDS,
  EVENT_ALIASES,
  NONE,
  VIDEO_COUNTERS,
  VIEWER_AD_COUNTERS,
  VIEWER_VIDEO_COUNTERS,
} from "../../shared/counters";
import { dayRange, endOfDay } from "../../shared/dates";
import { invalid } from "../../shared/errors";
import { type JsonPart, mapped, paged } from "../../shared/json-stream";
import type { Dependency } from "../../shared/versions";
import type { Caller } from "../catalog/caller";
import { olderRecordHead, syndicationObject, thumbnailOf } from "../catalog/records";
import { requireEntitlement } from "../entitlements";
import { callerContentKeys } from "./caller-keys";
import { hashTput } from "./viewers";

/**
 * Most stats rows E9 answers with (about 6 MB of JSON): its entries group rows per video, so it
 * is built in memory; beyond it E9 is a 400 asking for result_limit, a narrower range or one
 * content key, never a silently cut list. The flat reports (E8, E10, E11, E12) have no limit:
 * they are read in keyset pages and streamed (src/shared/json-stream.ts).
 */
export const REPORT_MAX_ROWS = 10_000;
/** Rows per D1 query of the streamed reports. */
export const PAGE_ROWS = 2_000;

export interface ReportContext {
  /** The catalog database of the request (the caller's statistics shard is found from it). */
  db: Db;
  caller: Caller;
  staticUrl: string;
}

export interface ReportParams {
  start_date: string;
  end_date: string;
  content_key?: string;
}

/**
 * The rows a report reads: organization, range, content key, and with X-Service-MMI-Key the
 * sub-organization's content keys among those with statistics of this rollup in the range
 * (one query per database: the keys with totals, then the catalog keeps its own).
 */
async function scopeOf(
  ctx: ReportContext,
  stats: StatsDb,
  q: ReportParams,
  rollup: Rollup,
): Promise<StatsScope> {
  const range = dayRange(q.start_date, q.end_date, { start: "start_date", end: "end_date" });
  const scope: StatsScope = {
    organizationId: ctx.caller.org.id,
    start: range.start,
    end: range.end,
    contentKey: q.content_key,
  };
  const keys = await callerContentKeys(ctx.db, stats, ctx.caller, scope, rollup.totals);
  return keys ? { ...scope, keys } : scope;
}

/** The rows of the scope's keys, when the queries could not narrow to a list that long. */
async function* ofScopeKeys(
  rows: AsyncIterable<StatsRow>,
  scope: StatsScope,
): AsyncGenerator<StatsRow> {
  const keep = keysInSql(scope) ? null : new Set(scope.keys);
  for await (const row of rows) if (!keep || keep.has(row.content_key as string)) yield row;
}

/** Pages of rows of a scope, as one sequence (keyset pages of PAGE_ROWS, then the key filter). */
function rowsOf(
  scope: StatsScope,
  page: (last: StatsRow | null, limit: number) => Promise<StatsRow[]>,
): AsyncIterable<StatsRow> {
  return ofScopeKeys(
    paged<StatsRow>((last) => page(last, PAGE_ROWS), PAGE_ROWS),
    scope,
  );
}

const tooManyRows = () =>
  invalid(
    `start_date, end_date: the report has more than ${REPORT_MAX_ROWS} stats rows; give result_limit, narrow the date range or give content_key`,
  );

/** E9's rows, fetched with limit REPORT_MAX_ROWS + 1: one more means too many. */
function capped(rows: StatsRow[]): StatsRow[] {
  if (rows.length > REPORT_MAX_ROWS) throw tooManyRows();
  return rows;
}

const withEndOfDay = (row: StatsRow): StatsRow => ({ ...row, date: endOfDay(row.date as string) });

/** The `data` of a report: the JSON document parts (literal text and streamed sequences). */
export type ReportData = JsonPart[];

const rowArray = (rows: AsyncIterable<unknown>): ReportData => ["[", rows, "]"];

/** E8 get_video_reports: video statistics rows. Requires the enterprise player. */
export async function videoReport(ctx: ReportContext, q: ReportParams): Promise<ReportData> {
  requireEntitlement(ctx.caller.org, "enterprise_player", "get_video_reports");
  const stats = statsDbOf(ctx.db, ctx.caller.org);
  const scope = await scopeOf(ctx, stats, q, ROLLUPS.video);
  return rowArray(
    mapped(
      rowsOf(scope, (last, limit) => videoRows(stats, scope, last, limit)),
      withEndOfDay,
    ),
  );
}

/** E11 get_ad_reports: ad statistics rows (no entitlement named by the spec). */
export async function adReport(ctx: ReportContext, q: ReportParams): Promise<ReportData> {
  const stats = statsDbOf(ctx.db, ctx.caller.org);
  const scope = await scopeOf(ctx, stats, q, ROLLUPS.ad);
  return rowArray(
    mapped(
      rowsOf(scope, (last, limit) => adRows(stats, scope, last, limit)),
      withEndOfDay,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// E9 get_video_reports_combined

export interface CombinedParams extends ReportParams {
  sort_field?: string;
  column_list?: string;
  result_limit?: number;
}

const DIMENSIONS = new Set<string>(["video_device_type", "video_player_id"]);
const COMBINED = new Set<string>([...COMBINED_FIELDS, "video_exited_fulscreen"]);

/** A field of E9 in the row's spelling (video_exited_fullscreen → video_exited_fulscreen). */
function combinedField(name: string, param: string): string {
  const field = name.trim();
  if (!COMBINED.has(field))
    throw invalid(
      `${param}: unknown field ${JSON.stringify(field)}; allowed: ${COMBINED_FIELDS.join(", ")}`,
    );
  return field === "video_exited_fullscreen" ? EVENT_ALIASES[field]! : field;
}

/** Spec 2.3 older record as the combined report shows it. */
function combinedVideoRecord(c: Content, windows: Syndication[], staticUrl: string) {
  return {
    ...olderRecordHead(c),
    privateCategory: c.categories,
    privateTag: c.tags,
    removed: c.removed,
    syndications: windows.map(syndicationObject),
    thumbnail: thumbnailOf(c, { staticUrl }),
    title: c.title,
    translations: c.translations,
  };
}

async function videosWithWindows(db: Db, organizationId: number, keys: string[]) {
  const byKey = await contentsByKey(db, organizationId, keys);
  const windows = await syndicationsOf(
    db,
    [...byKey.values()].map((c) => c.id),
  );
  return { byKey, windows };
}

/**
 * Videos with their statistics. Without column_list a stats row is the whole video row; with
 * it, content_key, date and the listed fields, the counters summed over the dimensions not
 * listed. sort_field orders the videos by their total over the range (a dimension: its greatest
 * value), highest first; result_limit keeps that many videos. Without sort_field videos are in
 * content key order. Within a video, rows are by date.
 */
export async function combinedReport(ctx: ReportContext, q: CombinedParams): Promise<ReportData> {
  requireEntitlement(ctx.caller.org, "enterprise_player", "get_video_reports_combined");
  const stats = statsDbOf(ctx.db, ctx.caller.org);
  const scope = await scopeOf(ctx, stats, q, ROLLUPS.video);
  const sortField =
    q.sort_field !== undefined ? combinedField(q.sort_field, "sort_field") : undefined;
  let fields: string[] | undefined;
  if (q.column_list !== undefined) {
    const names = q.column_list.split(",").filter((n) => n.trim() !== "");
    if (names.length === 0) throw invalid("column_list: must list at least one field");
    fields = [...new Set(names.map((n) => combinedField(n, "column_list")))];
    if (sortField && !fields.includes(sortField))
      throw invalid(`column_list: must include the sort_field ${sortField}`);
  }
  const dimensions: VideoDimension[] = fields
    ? (fields.filter((f) => DIMENSIONS.has(f)) as VideoDimension[])
    : ["country", "video_device_type", "video_player_id"];
  const counters = fields ? fields.filter((f) => !DIMENSIONS.has(f)) : [...VIDEO_COUNTERS];
  // The totals narrow to the scope's keys in SQL when the list is short enough; else here.
  const totalsScope = { ...scope, keys: keysInSql(scope) ? scope.keys : undefined };
  const keep = keysInSql(scope) ? null : new Set(scope.keys);

  let keys: string[] | null = null;
  if (sortField !== undefined || q.result_limit !== undefined) {
    const limit = q.result_limit ?? REPORT_MAX_ROWS;
    // A top N by a counter walks the lifetime totals, highest first, while they can answer it;
    // else a ranking by a counter (or by key) reads the totals: videos × months, not every
    // daily row.
    const byLifetime =
      sortField !== undefined && !DIMENSIONS.has(sortField) && !keep
        ? await rankByLifetime(stats, ROLLUPS.video.totals, totalsScope, sortField, limit)
        : null;
    const ranked =
      byLifetime ??
      (sortField !== undefined && DIMENSIONS.has(sortField)
        ? await rankByDimension(stats, scope, sortField as VideoDimension, keep ? undefined : limit)
        : await rankByTotal(
            stats,
            ROLLUPS.video.totals,
            totalsScope,
            sortField ?? null,
            keep ? undefined : limit,
          ));
    keys = (keep ? ranked.filter((k) => keep.has(k)) : ranked).slice(0, limit);
  }
  // A key list too long for SQL has more keys, hence rows, than E9 answers with.
  if (keep && !keys) throw tooManyRows();
  let rows: StatsRow[] = [];
  if (!keys || keys.length > 0) {
    const rowScope = keys ? { ...totalsScope, keys } : totalsScope;
    // Without a dimension the stats rows are the day totals themselves.
    rows =
      dimensions.length === 0
        ? await dayTotalsOf(stats, ROLLUPS.video.totals, rowScope, counters, REPORT_MAX_ROWS + 1)
        : await groupedVideoRows(
            stats,
            keys ? { ...scope, keys } : scope,
            dimensions,
            counters,
            REPORT_MAX_ROWS + 1,
          );
    rows = capped(rows);
  }

  const statsByKey = new Map<string, StatsRow[]>();
  for (const row of rows) {
    const key = row.content_key as string;
    if (!statsByKey.has(key)) statsByKey.set(key, []);
    statsByKey.get(key)!.push(withEndOfDay(row));
  }
  const order = keys ?? [...statsByKey.keys()];
  const { byKey, windows } = await videosWithWindows(ctx.db, ctx.caller.org.id, order);
  const entries = order.map((key) => {
    const content = byKey.get(key);
    return {
      stats: statsByKey.get(key) ?? [],
      video: content
        ? combinedVideoRecord(content, windows.get(content.id) ?? [], ctx.staticUrl)
        : null,
    };
  });
  return [JSON.stringify(entries)];
}

// ---------------------------------------------------------------------------------------------
// E10 get_viewer_reports

export interface ViewerParams extends ReportParams {
  fingerprint_list?: string;
  tput?: string;
}

/** `"a","b"` (quotes optional, brackets tolerated) → ["a", "b"]. */
export function parseFingerprintList(value: string): string[] {
  const inner = value.trim().replace(/^\[(.*)\]$/s, "$1");
  const list = inner
    .split(",")
    .map((f) =>
      f
        .trim()
        .replace(/^"(.*)"$/s, "$1")
        .replace(/^'(.*)'$/s, "$1"),
    )
    .filter((f) => f !== "");
  if (list.length === 0)
    throw invalid(
      'fingerprint_list: must list at least one fingerprint, each quoted, comma-separated: "a","b"',
    );
  if (list.length > 100) throw invalid("fingerprint_list: at most 100 fingerprints");
  return [...new Set(list)];
}

/**
 * Four modes: dates only (every viewer row), content_key (its viewers), fingerprint_list (what
 * those devices watched), tput (what that user watched; may be combined with content_key).
 * content_key or tput together with fingerprint_list is a 400. Requires viewer analytics.
 */
export async function viewerReport(ctx: ReportContext, q: ViewerParams): Promise<ReportData> {
  requireEntitlement(ctx.caller.org, "viewer_analytics", "get_viewer_reports");
  if (q.fingerprint_list !== undefined && q.content_key !== undefined) {
    throw invalid("content_key: must not be given together with fingerprint_list");
  }
  if (q.fingerprint_list !== undefined && q.tput !== undefined) {
    throw invalid("tput: must not be given together with fingerprint_list");
  }
  const stats = statsDbOf(ctx.db, ctx.caller.org);
  const scope = await scopeOf(ctx, stats, q, ROLLUPS.viewer);
  const fingerprints =
    q.fingerprint_list !== undefined ? parseFingerprintList(q.fingerprint_list) : undefined;
  const tputHash = q.tput !== undefined ? await hashTput(ctx.caller.org.id, q.tput) : undefined;
  const rows = rowsOf(scope, (last, limit) =>
    viewerRows(stats, scope, { fingerprints, tputHash }, last, limit),
  );
  return rowArray(
    mapped(rows, (r) => {
      const out: StatsRow = { date: endOfDay(r.date as string) };
      if (q.content_key === undefined) out.content_key = r.content_key!;
      out.country = r.country!;
      out.device_type = r.device_type!;
      out.ip = r.ip!;
      out.fingerprint = r.fingerprint!;
      // Only the hash is stored: the token itself when the query gave it, else the hash.
      out.tput = q.tput !== undefined && r.tput_hash !== NONE ? q.tput : r.tput_hash!;
      for (const c of VIEWER_VIDEO_COUNTERS) out[c] = r[c]!;
      out.ad_position = r.ad_position!;
      for (const c of VIEWER_AD_COUNTERS) out[c] = r[c]!;
      return out;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// E12 get_ecommerce_reports

export interface EcommerceParams extends ReportParams {
  include_video_data?: "0" | "1";
  include_ecommerce_data?: "0" | "1";
}

/** Spec 2.5 ecommerce video info entry. */
function ecommerceVideoInfo(c: Content, windows: Syndication[], staticUrl: string) {
  return {
    content_key: c.contentKey,
    description: c.description,
    duration: c.duration,
    service_categories: c.serviceCategories,
    privateCategories: c.categories,
    privateTags: c.tags,
    removed: c.removed ? 1 : 0,
    syndications: windows.map((w) => ({
      start_date: w.startTime,
      end_date: w.stopTime,
      geos: w.geos,
    })),
    thumbnail: thumbnailOf(c, { staticUrl }),
    title: c.title,
    translations: c.translations,
  };
}

/** What E12 reads besides statistics rows: the catalog when it adds video_info. */
export function ecommerceReportDependsOn(
  q: Pick<EcommerceParams, "include_video_data">,
): Dependency[] {
  return q.include_video_data === "1" ? ["statistics", "catalog"] : ["statistics"];
}

/**
 * ecommerce_stats always; ecommerce_info (the items named in the stats) with
 * include_ecommerce_data=1; video_info (the videos in the stats that still exist) with
 * include_video_data=1. Requires the ecommerce add-on.
 */
export async function ecommerceReport(ctx: ReportContext, q: EcommerceParams): Promise<ReportData> {
  requireEntitlement(ctx.caller.org, "ecommerce", "get_ecommerce_reports");
  const orgId = ctx.caller.org.id;
  const statsDb = statsDbOf(ctx.db, ctx.caller.org);
  const scope = await scopeOf(ctx, statsDb, q, ROLLUPS.ecommerce);
  // (A sub-organization key list too long for SQL lists the items of the organization's rows.)
  const info =
    q.include_ecommerce_data === "1"
      ? (
          await listEcommerceItems(
            statsDb,
            orgId,
            (await ecommerceKeysInScope(statsDb, scope, "ecommerce_key")).filter((k) => k !== NONE),
          )
        ).map((i) => ({
          ecommerce_key: i.ecommerceKey,
          ecommerce_link: i.ecommerceLink,
          ecommerce_name: i.ecommerceName,
        }))
      : [];
  const stats = mapped(
    rowsOf(scope, (last, limit) => ecommerceRows(statsDb, scope, last, limit)),
    withEndOfDay,
  );
  const db = ctx.db;
  async function* videoInfo() {
    if (!ecommerceReportDependsOn(q).includes("catalog")) return;
    // Keys from the statistics, then one catalog query per 200 of them (keys in, records out).
    const keep = keysInSql(scope) ? null : new Set(scope.keys);
    const keys = (await ecommerceKeysInScope(statsDb, scope, "content_key")).filter(
      (k) => !keep || keep.has(k),
    );
    for (let i = 0; i < keys.length; i += 200) {
      const batch = keys.slice(i, i + 200);
      const { byKey, windows } = await videosWithWindows(db, orgId, batch);
      for (const k of batch) {
        const c = byKey.get(k);
        if (c) yield ecommerceVideoInfo(c, windows.get(c.id) ?? [], ctx.staticUrl);
      }
    }
  }
  return [
    `{"ecommerce_info":${JSON.stringify(info)},"ecommerce_stats":[`,
    stats,
    `],"video_info":[`,
    videoInfo(),
    "]}",
  ];
}
