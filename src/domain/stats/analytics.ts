// E7 GET /v2/analytics/{type}: sums of the chosen counters per content key over the range
// (summary) or per UTC day and content key (detailed), paged like E6.
import type { Entitlement } from "../../db/schema";
import { analyticsRows, type AnalyticsContent } from "../../db/stats/analytics";
import type { StatsRow } from "../../db/stats/reports";
import { ROLLUPS, type Rollup } from "../../db/stats/rollups";
import type { AnalyticsType } from "../../schemas/reports";
import { dayRange, endOfDay } from "../../shared/dates";
import { invalid } from "../../shared/errors";
import { videoQuery, type Requester, type VideoFilterParams } from "../catalog/video-query";
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

export interface AnalyticsParams extends Omit<VideoFilterParams, "networkVideos" | "watchedByTput"> {
  summary?: string;
  detailed?: string;
  startDate: string;
  endDate: string;
  fields?: string | string[];
  networkVideos?: "0" | "1";
  page: number;
  pageSize: number;
}

/** `?summary`, `?summary=1`, `?summary=true` select it; absent, 0 or false do not. */
const selected = (v: string | undefined) => v !== undefined && v !== "0" && v.toLowerCase() !== "false";

function parseFields(type: AnalyticsType, counters: readonly string[], fields: string | string[] | undefined): string[] {
  if (fields === undefined) return [...counters];
  const names = (Array.isArray(fields) ? fields : [fields]).flatMap((f) => f.split(",")).map((f) => f.trim()).filter(Boolean);
  if (names.length === 0) throw invalid("fields: must name at least one metric");
  const known = new Set(counters);
  const out: string[] = [];
  for (const name of names) {
    const field = FIELD_ALIASES[name] ?? name;
    if (!known.has(field)) throw invalid(`fields: unknown metric ${JSON.stringify(name)} for type ${type}; allowed: played_1, played_30, ${counters.join(", ")}`);
    if (!out.includes(field)) out.push(field);
  }
  return out;
}

const E6_FILTERS = ["feedId", "mmi", "searchString", "categories", "customFields", "events", "tags"] as const;

/**
 * Which content keys count. Without an E6 filter (and without an MMI scope): every key of the
 * organization with statistics, removed and deleted videos included, like the reports. With
 * one: the videos E6 would list with those filters. Livestream: only content with isLive.
 * Statistics are always the organization's own (network videos' belong to their owners).
 */
async function contentFilter(r: Requester, spec: TypeSpec, q: AnalyticsParams): Promise<AnalyticsContent | null> {
  const filtered = E6_FILTERS.some((f) => q[f] !== undefined) || q.networkVideos === "1" || r.caller.subOrg !== null;
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

export async function analytics(r: Requester, type: AnalyticsType, q: AnalyticsParams) {
  const spec = TYPES[type];
  if (spec.entitlement) requireEntitlement(r.caller.org, spec.entitlement, `analytics of type ${type}`);
  if (selected(q.summary) === selected(q.detailed)) throw invalid("summary, detailed: give exactly one of them");
  const detailed = selected(q.detailed);
  const range = dayRange(q.startDate, q.endDate, { start: "startDate", end: "endDate" });
  const counters = parseFields(type, spec.rollup.counters, q.fields);
  const { count, rows } = await analyticsRows(r.db, {
    rollup: spec.rollup,
    organizationId: r.caller.org.id,
    start: range.start,
    end: range.end,
    counters,
    detailed,
    content: await contentFilter(r, spec, q),
    contentKey: q.contentKey,
    limit: q.pageSize,
    offset: (q.page - 1) * q.pageSize,
  });
  const data = rows.map((row: StatsRow) => {
    const out: StatsRow = detailed
      ? { date: endOfDay(row.date as string), contentKey: row.content_key! }
      : { contentKey: row.content_key!, startDate: range.start, endDate: range.end };
    for (const c of counters) out[c] = row[c]!;
    return out;
  });
  return { count, message: "ok", page: q.page, pageSize: q.pageSize, data };
}
