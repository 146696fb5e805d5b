// The totals rule, said once: what each totals table of a rollup (rollups.ts) holds, as a SELECT
// over the rollup's daily rows, built from the rollup definitions (tables, key columns,
// counters). The consumer keeps the totals incrementally (rollups.ts upsertIncrements,
// addToRunningTotals); the rebuild (scripts/stats-totals.mjs, through rebuildTotalsSql) and the
// test that checks the consumer's upkeep (test/stats-totals.test.ts) read the rule from here.
// (migrations-stats/0003_running_totals.sql applied it once, before this file: a migration is
// frozen once deployed.)
import { getTableName } from "drizzle-orm";
import { type CounterTable, ROLLUP_LIST, type Rollup } from "./rollups";

/** A totals table's rows as the rule defines them: its columns and the SELECT that yields them. */
export interface TotalsDefinition {
  table: string;
  columns: string[];
  select: string;
}

export type TotalsKind = "day" | "month" | "orgDay" | "running" | "keys";

const names = (t: CounterTable) => Object.values(t.key).map((c) => c.name);

/**
 * Each totals table of the rollup, from its daily rows filtered by `where` (e.g. `WHERE
 * organization_id = ?1`, or empty):
 * - day, month, organization-day: the counters summed per their key (a month is a day's
 *   'YYYY-MM');
 * - running: per content key and day, the key's day sums up to that day;
 * - keys: per content key, its first and last day.
 * `daySums` is where the running totals and the keys read the day sums: by default the day
 * definition itself; the rebuild passes the day totals table it has just filled.
 */
export function totalsDefinitions(
  r: Rollup,
  where = "",
  daySums?: string,
): Record<TotalsKind, TotalsDefinition> {
  const { day, month, orgDay, running, keys } = r.totals;
  const rows = getTableName(r.table);
  const counters = r.counters;
  const sums = counters.map((c) => `sum(${c}) AS ${c}`).join(", ");
  const dayDefinition: TotalsDefinition = {
    table: getTableName(day.table),
    columns: [...names(day), ...counters],
    select: `SELECT organization_id, date, content_key, ${sums} FROM ${rows} ${where} GROUP BY organization_id, date, content_key`,
  };
  const source = daySums ?? `(${dayDefinition.select})`;
  return {
    day: dayDefinition,
    month: {
      table: getTableName(month.table),
      columns: [...names(month), ...counters],
      select: `SELECT organization_id, substr(date, 1, 7), content_key, ${sums} FROM ${rows} ${where} GROUP BY organization_id, substr(date, 1, 7), content_key`,
    },
    orgDay: {
      table: getTableName(orgDay.table),
      columns: [...names(orgDay), ...counters],
      select: `SELECT organization_id, date, ${sums} FROM ${rows} ${where} GROUP BY organization_id, date`,
    },
    running: {
      table: getTableName(running.table),
      columns: ["organization_id", "content_key", "date", ...counters],
      select: `SELECT organization_id, content_key, date, ${counters.map((c) => `sum(${c}) OVER w`).join(", ")} FROM ${source} WINDOW w AS (PARTITION BY organization_id, content_key ORDER BY date ROWS UNBOUNDED PRECEDING)`,
    },
    keys: {
      table: getTableName(keys),
      columns: ["organization_id", "content_key", "first_date", "last_date"],
      select: `SELECT organization_id, content_key, min(date), max(date) FROM ${source} GROUP BY organization_id, content_key`,
    },
  };
}

/**
 * A rollup's lifetime totals as the rule defines them (null: it keeps none): per content key, its
 * day sums over every day. What the cron's ranking writes from the running totals' last rows
 * (`rankChangedKeys`), and what a key's row holds whenever the key is not marked changed.
 */
export function lifetimeDefinition(
  r: Rollup,
  where = "",
  daySums?: string,
): TotalsDefinition | null {
  if (!r.totals.lifetime) return null;
  const source = daySums ?? `(${totalsDefinitions(r, where).day.select})`;
  const sums = r.counters.map((c) => `sum(${c}) AS ${c}`).join(", ");
  return {
    table: getTableName(r.totals.lifetime.table),
    columns: ["organization_id", "content_key", ...r.counters],
    select: `SELECT organization_id, content_key, ${sums} FROM ${source} GROUP BY organization_id, content_key`,
  };
}

/**
 * The statements that replace the totals of these organization ids (all organizations if null)
 * with the rule's rows: every totals table emptied, then filled, day totals first (the running
 * totals, the keys and the lifetime totals read them), no key left marked changed. Run in one
 * transaction.
 */
export function rebuildTotalsSql(orgIds: readonly number[] | null = null): string[] {
  if (orgIds !== null && orgIds.length === 0) return [];
  const where =
    orgIds === null ? "" : `WHERE organization_id IN (${orgIds.map(Number).join(", ")})`;
  return ROLLUP_LIST.flatMap((r) => {
    const dayTotals = `${getTableName(r.totals.day.table)} ${where}`;
    const order: TotalsKind[] = ["day", "month", "orgDay", "running", "keys"];
    const definitions = totalsDefinitions(r, where, dayTotals);
    // The lifetime totals last: exact once rebuilt, so no key is marked changed.
    const lifetime = lifetimeDefinition(r, where, dayTotals);
    const filled = [...order.map((kind) => definitions[kind]), ...(lifetime ? [lifetime] : [])];
    const changed = r.totals.lifetime ? [getTableName(r.totals.lifetime.changed)] : [];
    return [
      ...[...filled.map((d) => d.table), ...changed].map((t) => `DELETE FROM ${t} ${where};`),
      ...filled.map((d) => `INSERT INTO ${d.table} (${d.columns.join(", ")}) ${d.select};`),
    ];
  });
}
