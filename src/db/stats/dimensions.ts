// The distinct free-form dimension values seen per organization and day, for the cardinality
// caps (domain/stats/fold.ts decides; this reads and writes the bookkeeping).
import { lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../client";
import { dimensionCounts, dimensionValues } from "../schema-stats";

export interface DimensionValue {
  day: string;
  dimension: string;
  value: string;
}

export const valueKey = (v: DimensionValue) => `${v.day}\u0000${v.dimension}\u0000${v.value}`;
export const slotKey = (v: Pick<DimensionValue, "day" | "dimension">) => `${v.day}\u0000${v.dimension}`;

/** Of these candidates: which are already known, and how many values each (day, dimension) has. */
export async function dimensionState(db: Db, organizationId: number, candidates: DimensionValue[]) {
  if (candidates.length === 0) return { known: new Set<string>(), counts: new Map<string, number>() };
  const triples = JSON.stringify(candidates.map((c) => [c.day, c.dimension, c.value]));
  const slots = JSON.stringify([...new Map(candidates.map((c) => [slotKey(c), [c.day, c.dimension]])).values()]);
  const [known, counts] = await Promise.all([
    db
      .select({ day: dimensionValues.day, dimension: dimensionValues.dimension, value: dimensionValues.value })
      .from(dimensionValues)
      .where(
        sql`${dimensionValues.organizationId} = ${organizationId} and (${dimensionValues.day}, ${dimensionValues.dimension}, ${dimensionValues.value})
          in (select value ->> 0, value ->> 1, value ->> 2 from json_each(${triples}))`,
      ),
    db
      .select({ day: dimensionCounts.day, dimension: dimensionCounts.dimension, values: dimensionCounts.values })
      .from(dimensionCounts)
      .where(
        sql`${dimensionCounts.organizationId} = ${organizationId} and (${dimensionCounts.day}, ${dimensionCounts.dimension})
          in (select value ->> 0, value ->> 1 from json_each(${slots}))`,
      ),
  ]);
  return { known: new Set(known.map(valueKey)), counts: new Map(counts.map((c) => [slotKey(c), c.values])) };
}

/** Statements that record new values and bump their slots' counts (for the batch that counts the events). */
export function registerDimensionValues(db: Db, organizationId: number, values: DimensionValue[]): BatchItem<"sqlite">[] {
  if (values.length === 0) return [];
  const triples = JSON.stringify(values.map((v) => [v.day, v.dimension, v.value]));
  const added = new Map<string, { day: string; dimension: string; n: number }>();
  for (const v of values) {
    const slot = added.get(slotKey(v)) ?? { day: v.day, dimension: v.dimension, n: 0 };
    slot.n += 1;
    added.set(slotKey(v), slot);
  }
  const slots = JSON.stringify([...added.values()].map((s) => [s.day, s.dimension, s.n]));
  return [
    db
      .insert(dimensionValues)
      .select(sql`select ${organizationId}, value ->> 0, value ->> 1, value ->> 2 from json_each(${triples}) where true`)
      .onConflictDoNothing(),
    db
      .insert(dimensionCounts)
      .select(sql`select ${organizationId}, value ->> 0, value ->> 1, value ->> 2 from json_each(${slots}) where true`)
      .onConflictDoUpdate({
        target: [dimensionCounts.organizationId, dimensionCounts.day, dimensionCounts.dimension],
        set: { values: sql`${dimensionCounts.values} + excluded.${sql.identifier("values")}` },
      }),
  ];
}

/** Forgets the values of days before `beforeDay` (no event that old is accepted any more). */
export async function purgeDimensionValues(db: Db, beforeDay: string): Promise<number> {
  const [values] = await db.batch([
    db.delete(dimensionValues).where(lt(dimensionValues.day, beforeDay)),
    db.delete(dimensionCounts).where(lt(dimensionCounts.day, beforeDay)),
  ]);
  return values.meta.changes ?? 0;
}

