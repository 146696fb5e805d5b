// The catalog's record of organizations whose statistics move between shards (stats_moves),
// and the switch itself: the organization's shard and the move's phase change together.
import { and, eq, inArray, lt, ne, sql } from "drizzle-orm";
import { type Db, runBatch } from "./client";
import { organizations, type StatsMove, type StatsMovePhase, statsMoves } from "./schema";

export async function findStatsMove(
  db: Db,
  organizationId: number,
): Promise<StatsMove | undefined> {
  const [row] = await db
    .select()
    .from(statsMoves)
    .where(eq(statsMoves.organizationId, organizationId));
  return row;
}

/** The moves of these organizations (a queue batch's), by organization id. */
export async function statsMovesOf(
  db: Db,
  organizationIds: readonly number[],
): Promise<Map<number, StatsMove>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(statsMoves)
    .where(inArray(statsMoves.organizationId, [...organizationIds]));
  return new Map(rows.map((r) => [r.organizationId, r]));
}

/** The moves still under way (every phase but done), for the cron. */
export function unfinishedStatsMoves(db: Db): Promise<StatsMove[]> {
  return db.select().from(statsMoves).where(ne(statsMoves.phase, "done"));
}

export async function insertStatsMove(db: Db, move: StatsMove): Promise<void> {
  // A finished move of the organization (kept for the consumer's duplicate checks) makes room.
  await runBatch(db, [
    db.delete(statsMoves).where(eq(statsMoves.organizationId, move.organizationId)),
    db.insert(statsMoves).values(move),
  ]);
}

/**
 * Records a step's progress, only while the move is still in the phase the step started in: two
 * steps at once (the operator's command and the cron) never take a move back to an earlier phase.
 */
export async function updateStatsMove(
  db: Db,
  organizationId: number,
  phase: StatsMovePhase,
  changes: Partial<Omit<StatsMove, "organizationId">>,
): Promise<void> {
  await db
    .update(statsMoves)
    .set(changes)
    .where(and(eq(statsMoves.organizationId, organizationId), eq(statsMoves.phase, phase)));
}

export async function deleteStatsMove(db: Db, organizationId: number): Promise<void> {
  await db.delete(statsMoves).where(eq(statsMoves.organizationId, organizationId));
}

/** The switch: the organization's statistics are read and counted in `toShard` from now on (once: a second switch of the same move changes nothing). */
export async function switchStatsShard(db: Db, move: StatsMove, now: string): Promise<void> {
  const inCatchUp = and(
    eq(statsMoves.organizationId, move.organizationId),
    eq(statsMoves.phase, "catch-up"),
  );
  await runBatch(db, [
    db
      .update(organizations)
      .set({ statsShard: move.toShard })
      .where(
        and(
          eq(organizations.id, move.organizationId),
          sql`exists (select 1 from ${statsMoves} where ${inCatchUp})`,
        ),
      ),
    db
      .update(statsMoves)
      .set({
        phase: "drop",
        cursor: null,
        rowsCopied: move.rowsCopied,
        switchedAt: now,
        updatedAt: now,
      })
      .where(inCatchUp),
  ]);
}

/** Forgets finished moves switched before `before` (their old shard's message ids are purged by then). */
export async function forgetFinishedStatsMoves(db: Db, before: string): Promise<number> {
  const result = await db
    .delete(statsMoves)
    .where(and(eq(statsMoves.phase, "done"), lt(statsMoves.switchedAt, before)));
  return result.meta.changes ?? 0;
}
