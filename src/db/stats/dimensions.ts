// The distinct free-form dimension values seen per organization and day, for the cardinality
// caps (domain/stats/tally.ts decides; this reads and writes the bookkeeping). A consumer batch
// mixes organizations, so every value carries its organization.
import { and, eq, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { StatsDb } from "./client";
import { dimensionCounts, dimensionValues } from "./schema";

export interface DimensionValue {
  organizationId: number;
  day: string;
  dimension: string;
  value: string;
}

type Slot = Pick<DimensionValue, "organizationId" | "day" | "dimension">;

export const valueKey = (v: DimensionValue) =>
  `${v.organizationId}\u0000${v.day}\u0000${v.dimension}\u0000${v.value}`;
export const slotKey = (v: Slot) => `${v.organizationId}\u0000${v.day}\u0000${v.dimension}`;

/** Values per JSON parameter (a value is at most 256 characters; D1 caps a bound value at 1 MB). */
const VALUES_PER_STATEMENT = 2000;

/** Of these candidates: which are already known, and how many values each (organization, day, dimension) has. */
export async function dimensionState(db: StatsDb, candidates: DimensionValue[]) {
  const known = new Set<string>();
  const counts = new Map<string, number>();
  for (let i = 0; i < candidates.length; i += VALUES_PER_STATEMENT) {
    const part = await dimensionStatePart(db, candidates.slice(i, i + VALUES_PER_STATEMENT));
    for (const k of part.known) known.add(k);
    for (const [k, n] of part.counts) counts.set(k, n);
  }
  return { known, counts };
}

async function dimensionStatePart(db: StatsDb, candidates: DimensionValue[]) {
  const values = JSON.stringify(
    candidates.map((c) => [c.organizationId, c.day, c.dimension, c.value]),
  );
  const slots = JSON.stringify([
    ...new Map(
      candidates.map((c) => [slotKey(c), [c.organizationId, c.day, c.dimension]]),
    ).values(),
  ]);
  const [known, counts] = await Promise.all([
    db
      .select({
        organizationId: dimensionValues.organizationId,
        day: dimensionValues.day,
        dimension: dimensionValues.dimension,
        value: dimensionValues.value,
      })
      .from(dimensionValues)
      .where(
        sql`(${dimensionValues.organizationId}, ${dimensionValues.day}, ${dimensionValues.dimension}, ${dimensionValues.value})
          in (select value ->> 0, value ->> 1, value ->> 2, value ->> 3 from json_each(${values}))`,
      ),
    db
      .select({
        organizationId: dimensionCounts.organizationId,
        day: dimensionCounts.day,
        dimension: dimensionCounts.dimension,
        values: dimensionCounts.values,
      })
      .from(dimensionCounts)
      .where(
        sql`(${dimensionCounts.organizationId}, ${dimensionCounts.day}, ${dimensionCounts.dimension})
          in (select value ->> 0, value ->> 1, value ->> 2 from json_each(${slots}))`,
      ),
  ]);
  return {
    known: new Set(known.map(valueKey)),
    counts: new Map(counts.map((c) => [slotKey(c), c.values])),
  };
}

/** Statements that record new values and bump their slots' counts (for the batch that counts the events). */
export function registerDimensionValues(
  db: StatsDb,
  values: DimensionValue[],
): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < values.length; i += VALUES_PER_STATEMENT)
    statements.push(...registerPart(db, values.slice(i, i + VALUES_PER_STATEMENT)));
  return statements;
}

function registerPart(db: StatsDb, values: DimensionValue[]): BatchItem<"sqlite">[] {
  const rows = JSON.stringify(values.map((v) => [v.organizationId, v.day, v.dimension, v.value]));
  const added = new Map<string, Slot & { n: number }>();
  for (const v of values) {
    const slot = added.get(slotKey(v)) ?? {
      organizationId: v.organizationId,
      day: v.day,
      dimension: v.dimension,
      n: 0,
    };
    slot.n += 1;
    added.set(slotKey(v), slot);
  }
  const slots = JSON.stringify(
    [...added.values()].map((s) => [s.organizationId, s.day, s.dimension, s.n]),
  );
  return [
    db
      .insert(dimensionValues)
      .select(
        sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3 from json_each(${rows}) where true`,
      )
      .onConflictDoNothing(),
    db
      .insert(dimensionCounts)
      .select(
        sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3 from json_each(${slots}) where true`,
      )
      .onConflictDoUpdate({
        target: [dimensionCounts.organizationId, dimensionCounts.day, dimensionCounts.dimension],
        set: { values: sql`${dimensionCounts.values} + excluded.${sql.identifier("values")}` },
      }),
  ];
}

/** Forgets the values of days before `beforeDay` (no event that old is accepted any more). */
export async function purgeDimensionValues(db: StatsDb, beforeDay: string): Promise<number> {
  const [values] = await db.batch([
    db.delete(dimensionValues).where(lt(dimensionValues.day, beforeDay)),
    db.delete(dimensionCounts).where(lt(dimensionCounts.day, beforeDay)),
  ]);
  return values.meta.changes ?? 0;
}

/** How many values a dimension has for an organization and day (0 when none). */
export async function dimensionCount(
  db: StatsDb,
  organizationId: number,
  day: string,
  dimension: string,
): Promise<number> {
  const [row] = await db
    .select({ values: dimensionCounts.values })
    .from(dimensionCounts)
    .where(
      and(
        eq(dimensionCounts.organizationId, organizationId),
        eq(dimensionCounts.day, day),
        eq(dimensionCounts.dimension, dimension),
      ),
    );
  return row?.values ?? 0;
}
