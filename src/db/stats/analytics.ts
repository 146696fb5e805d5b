// E7: sums of chosen counters per content key, or per UTC day and content key, paged.
import { and, asc, between, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../client";
import { contents } from "../schema";
import { videoQueryCondition, type VideoQuery } from "../video-query";
import { column, sumAs, type StatsRow } from "./reports";
import type { Rollup } from "./rollups";

/** The videos whose statistics count: an E6 query, or every live video of an organization. */
export type AnalyticsContent = { query: VideoQuery } | { liveOf: number };

export interface AnalyticsQuery {
  rollup: Rollup;
  organizationId: number;
  start: string;
  end: string;
  /** Counters to sum (columns of the rollup). */
  counters: readonly string[];
  detailed: boolean;
  /** Narrows the content keys; null: every key with statistics. */
  content: AnalyticsContent | null;
  contentKey?: string;
  limit: number;
  offset: number;
}

async function contentCondition(db: Db, content: AnalyticsContent | null): Promise<SQL | null> {
  if (!content) return null;
  if ("liveOf" in content) return and(eq(contents.organizationId, content.liveOf), eq(contents.isLive, true))!;
  return videoQueryCondition(db, content.query);
}

function analyticsWhere(q: AnalyticsQuery, condition: SQL | null): SQL {
  const t = q.rollup.table;
  return and(
    eq(t.organizationId, q.organizationId),
    between(t.date, q.start, q.end),
    q.contentKey !== undefined ? eq(t.contentKey, q.contentKey) : undefined,
    condition ? sql`${t.contentKey} in (select ${contents.contentKey} from ${contents} where ${condition})` : undefined,
  )!;
}

/**
 * One page of groups and the number of groups. Summary (groups by content key, which must all
 * be formed before the first is known): one pass, `count(*) over ()` counting the groups.
 * Detailed (groups by day and key, in index order): a count, then a page that stops at its
 * last group, which reads far less than the window would (the window keeps every group).
 */
export async function analyticsRows(db: Db, q: AnalyticsQuery): Promise<{ count: number; rows: StatsRow[] }> {
  const t = q.rollup.table;
  const where = analyticsWhere(q, await contentCondition(db, q.content));
  const groups = q.detailed ? [t.date, t.contentKey] : [t.contentKey];
  const selection: Record<string, SQLiteColumn | SQL.Aliased<number>> = q.detailed
    ? { date: t.date, content_key: t.contentKey }
    : { content_key: t.contentKey };
  for (const name of q.counters) selection[name] = sumAs(column(t, name), name);
  const countGroups = async () => {
    const [row] = await db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(db.select({ one: sql`1`.as("one") }).from(t).where(where).groupBy(...groups).as("g"));
    return row?.count ?? 0;
  };
  const page = () =>
    db
      .select(selection)
      .from(t)
      .where(where)
      .groupBy(...groups)
      .orderBy(...groups.map((c) => asc(c)))
      .limit(q.limit)
      .offset(q.offset) as Promise<StatsRow[]>;

  if (q.detailed) {
    const count = await countGroups();
    return { count, rows: count > q.offset ? await page() : [] };
  }
  selection.total_groups = sql<number>`count(*) over ()`.mapWith(Number).as("total_groups");
  const rows = await page();
  if (rows.length === 0) return { count: q.offset === 0 ? 0 : await countGroups(), rows };
  const count = rows[0]!.total_groups as number;
  for (const row of rows) delete row.total_groups;
  return { count, rows };
}
