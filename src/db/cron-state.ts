// Small named values kept by the scheduled handler and the publisher.
import { eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { cronState } from "./schema";

export async function readState(db: Db, name: string): Promise<string | null> {
  const [row] = await db
    .select({ value: cronState.value })
    .from(cronState)
    .where(eq(cronState.name, name));
  return row?.value ?? null;
}

export async function writeState(db: Db, name: string, value: string): Promise<void> {
  await db
    .insert(cronState)
    .values({ name, value })
    .onConflictDoUpdate({ target: cronState.name, set: { value: sql`excluded.value` } });
}

/** Adds to named counters (missing ones start at 0), in one statement. */
export async function addToCounters(db: Db, amounts: Record<string, number>): Promise<void> {
  const rows = Object.entries(amounts).map(([name, amount]) => ({
    name,
    value: String(Math.round(amount)),
  }));
  if (rows.length === 0) return;
  await db
    .insert(cronState)
    .values(rows)
    .onConflictDoUpdate({
      target: cronState.name,
      set: {
        value: sql`cast(cast(${cronState.value} as integer) + cast(excluded.value as integer) as text)`,
      },
    });
}
