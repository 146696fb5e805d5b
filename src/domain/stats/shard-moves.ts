// Moving an organization's statistics to another shard while its events keep arriving
// (docs/statistics.md "Moving an organization"). A move advances one bounded step at a time
// (`npm run admin -- stats move`, and the cron for a move nobody drives):
//
//   copy      the settled days (before settledBefore, which no event can reach any more: events
//             older than EVENTS_MAX_AGE_DAYS are refused, and the consumer holds back a moving
//             organization's message that names such a day) are copied while the old shard
//             keeps counting;
//   catch-up  the old shard is closed to the organization (a trigger there fails any transaction
//             that would count its messages, so a batch that chose the old shard before cannot
//             slip in), the consumer holds its messages back (retried a few seconds later),
//             the recent days and the undated tables are copied, and both shards' totals per
//             day are compared; equal, the organization's shard switches in the catalog;
//   drop      once no cached credential can still name the old shard, its rows are deleted there;
//   done      kept while the old shard's ids of counted messages matter (the consumer also asks
//             the old shard, so a message counted there before the move is not counted again).
//
// Different totals stop the move before the switch: the new shard's copy is deleted, the old
// shard is opened again, and nothing was lost (the old shard never stopped holding everything).
import type { Config } from "../../config";
import type { Db } from "../../db/client";
import { findOrganizationById, findOrganizationByKey } from "../../db/organizations";
import type { StatsMove } from "../../db/schema";
import type { StatsDb } from "../../db/stats/client";
import {
  closeShardTo,
  copyPage,
  dropRows,
  moveDigest,
  openShardTo,
  SHARD_TABLES,
} from "../../db/stats/shard-copy";
import {
  isStatsShard,
  type ShardedOrganization,
  shardBindingName,
  statsDbOf,
  statsShard,
  statsShardCount,
} from "../../db/stats/shards";
import {
  deleteStatsMove,
  findStatsMove,
  forgetFinishedStatsMoves,
  insertStatsMove,
  switchStatsShard,
  unfinishedStatsMoves,
  updateStatsMove,
} from "../../db/stats-moves";
import { DAY_MS, utcDay } from "../../shared/dates";
import { conflict, invalid, notFound } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";
import { applyIsolateEffects } from "../isolate-effects";

/** Rows per page copied or dropped. */
export const MOVE_PAGE_ROWS = 500;
/** Work one step does at most, so a request or a cron run stays short. */
export const MOVE_STEP_MS = 5_000;
/** Margin after the cached credentials expire before the old shard's rows go. */
const DROP_MARGIN_SECONDS = 30;
/** How long a finished move is kept (the old shard's message ids are purged by then). */
const FINISHED_MOVE_KEPT_DAYS = 5;

export interface MoveLimits {
  pageRows: number;
  /** Pages one step copies or drops at most (besides stepMs). */
  pagesPerStep: number;
  stepMs: number;
}

const DEFAULT_LIMITS: MoveLimits = {
  pageRows: MOVE_PAGE_ROWS,
  pagesPerStep: Number.POSITIVE_INFINITY,
  stepMs: MOVE_STEP_MS,
};

interface Cursor {
  table: number;
  after: unknown[] | null;
}

export interface MoveStatus {
  organizationKey: string;
  fromShard: number;
  toShard: number;
  phase: StatsMove["phase"];
  rowsCopied: number;
  rowsDropped: number;
  startedAt: string;
  switchedAt: string | null;
  /** Whether the move has nothing left to do (phase done). */
  done: boolean;
  /** Seconds before the next step can do anything (the drop waits for cached credentials). */
  retryAfterSeconds: number;
  /** Set when this step stopped the move: why (the totals differed). */
  stopped?: string;
}

export function moveStatus(
  organizationKey: string,
  move: StatsMove,
  retryAfterSeconds = 0,
  stopped?: string,
): MoveStatus {
  return {
    organizationKey,
    fromShard: move.fromShard,
    toShard: move.toShard,
    phase: move.phase,
    rowsCopied: move.rowsCopied,
    rowsDropped: move.rowsDropped,
    startedAt: move.startedAt,
    switchedAt: move.switchedAt,
    done: move.phase === "done",
    retryAfterSeconds,
    ...(stopped && { stopped }),
  };
}

/** The first day that is not settled: events of it may still arrive. */
export function settledBefore(now: Date, eventsMaxAgeDays: number): string {
  return utcDay(now.getTime() - (eventsMaxAgeDays + 1) * DAY_MS);
}

/**
 * Starts moving an organization's statistics to `toShard`, or, when a move to that shard is
 * under way, does its next step (the operator's command repeats this until `done`).
 */
export async function moveOrganizationStatistics(
  db: Db,
  config: Config,
  organizationKey: string,
  toShard: number,
  now: Date,
  limits = DEFAULT_LIMITS,
): Promise<MoveStatus> {
  const org = await findOrganizationByKey(db, organizationKey);
  if (!org) throw notFound(`organizationKey: ${organizationKey} does not exist`);
  if (!isStatsShard(toShard)) {
    throw invalid(
      `shard: ${toShard} is not a statistics shard of this worker (0 to ${statsShardCount() - 1}: STATS_DB, STATS_DB_1, …)`,
    );
  }
  let move = await findStatsMove(db, org.id);
  if (move && move.phase !== "done") {
    if (move.toShard !== toShard)
      throw conflict(
        `shard: the statistics of ${organizationKey} are moving to shard ${move.toShard}; wait until that move is done`,
      );
    return advance(db, config, organizationKey, move, now, limits);
  }
  // Already there: nothing to move (the last finished move, if any, says how it got there).
  if (org.statsShard === toShard)
    return moveStatus(
      organizationKey,
      move ?? { ...newMove(org, toShard, config, now), phase: "done" },
    );
  move = newMove(org, toShard, config, now);
  // The new shard may have closed itself to the organization when it left it before.
  await openShardTo(statsShard(db, toShard), org.id);
  await insertStatsMove(db, move);
  console.log(
    JSON.stringify({
      msg: "statistics move started",
      organization: organizationKey,
      from_shard: move.fromShard,
      to_shard: toShard,
      settled_before: move.settledBefore,
    }),
  );
  return advance(db, config, organizationKey, move, now, limits);
}

function newMove(org: ShardedOrganization, toShard: number, config: Config, now: Date): StatsMove {
  const at = now.toISOString();
  return {
    organizationId: org.id,
    fromShard: org.statsShard,
    toShard,
    phase: "copy",
    settledBefore: settledBefore(now, config.eventsMaxAgeDays),
    cursor: null,
    rowsCopied: 0,
    rowsDropped: 0,
    startedAt: at,
    switchedAt: null,
    updatedAt: at,
  };
}

/** The cron: one step of every move under way, and forgets finished moves past their time. */
export async function advanceStatsMoves(
  db: Db,
  config: Config,
  now: Date,
  limits = DEFAULT_LIMITS,
) {
  const advanced: MoveStatus[] = [];
  for (const move of await unfinishedStatsMoves(db)) {
    const org = await findOrganizationById(db, move.organizationId);
    if (org) advanced.push(await advance(db, config, org.organizationKey, move, now, limits));
  }
  const forgotten = await forgetFinishedStatsMoves(
    db,
    new Date(now.getTime() - FINISHED_MOVE_KEPT_DAYS * DAY_MS).toISOString(),
  );
  return { advanced, forgotten };
}

async function advance(
  db: Db,
  config: Config,
  organizationKey: string,
  move: StatsMove,
  now: Date,
  limits: MoveLimits,
): Promise<MoveStatus> {
  const deadline = Date.now() + limits.stepMs;
  let pages = 0;
  const more = () => pages++ < limits.pagesPerStep && Date.now() < deadline;
  const from = statsShard(db, move.fromShard);
  const to = statsShard(db, move.toShard);
  const at = now.toISOString();

  if (move.phase === "copy" || move.phase === "catch-up") {
    const part = { settledBefore: move.settledBefore, settled: move.phase === "copy" };
    const cursor: Cursor = move.cursor ? JSON.parse(move.cursor) : { table: 0, after: null };
    let copied = 0;
    while (cursor.table < SHARD_TABLES.length && more()) {
      const page = await copyPage(
        from,
        to,
        move.organizationId,
        SHARD_TABLES[cursor.table]!,
        part,
        cursor.after,
        limits.pageRows,
      );
      copied += page.rows;
      if (page.last) cursor.after = page.last;
      else Object.assign(cursor, { table: cursor.table + 1, after: null });
    }
    move = {
      ...move,
      rowsCopied: move.rowsCopied + copied,
      cursor: JSON.stringify(cursor),
      updatedAt: at,
    };
    if (cursor.table < SHARD_TABLES.length) {
      await updateStatsMove(db, move.organizationId, move.phase, {
        rowsCopied: move.rowsCopied,
        cursor: move.cursor,
        updatedAt: move.updatedAt,
      });
      return moveStatus(organizationKey, move);
    }
    if (move.phase === "copy") {
      // The fence first: from here the old shard counts nothing more of this organization.
      await closeShardTo(from, move.organizationId, at);
      await updateStatsMove(db, move.organizationId, "copy", {
        phase: "catch-up",
        rowsCopied: move.rowsCopied,
        cursor: null,
        updatedAt: move.updatedAt,
      });
      move = { ...move, phase: "catch-up", cursor: null };
      console.log(
        JSON.stringify({
          msg: "statistics move: settled days copied; catching up",
          organization: organizationKey,
          rows_copied: move.rowsCopied,
        }),
      );
      return moveStatus(organizationKey, move);
    }
    return verifyAndSwitch(db, config, organizationKey, move, from, to, now);
  }

  if (move.phase === "drop") {
    const wait = dropWaitSeconds(move.switchedAt!, config, now);
    if (wait > 0) return moveStatus(organizationKey, move, wait);
    const cursor: Cursor = move.cursor ? JSON.parse(move.cursor) : { table: 0, after: null };
    let dropped = 0;
    while (cursor.table < SHARD_TABLES.length && more()) {
      const n = await dropRows(
        from,
        move.organizationId,
        SHARD_TABLES[cursor.table]!,
        limits.pageRows,
      );
      dropped += n;
      if (n < limits.pageRows) cursor.table += 1;
    }
    const finished = cursor.table >= SHARD_TABLES.length;
    move = {
      ...move,
      rowsDropped: move.rowsDropped + dropped,
      cursor: finished ? null : JSON.stringify(cursor),
      phase: finished ? "done" : "drop",
      updatedAt: at,
    };
    await updateStatsMove(db, move.organizationId, "drop", {
      rowsDropped: move.rowsDropped,
      cursor: move.cursor,
      phase: move.phase,
      updatedAt: move.updatedAt,
    });
    if (finished)
      console.log(
        JSON.stringify({
          msg: "statistics move done",
          organization: organizationKey,
          to_shard: move.toShard,
          rows_copied: move.rowsCopied,
          rows_dropped: move.rowsDropped,
        }),
      );
    return moveStatus(organizationKey, move);
  }
  return moveStatus(organizationKey, move);
}

/** Seconds until the old shard's rows may go: every credential cached before the switch has expired. */
function dropWaitSeconds(switchedAt: string, config: Config, now: Date): number {
  const dropAt =
    Date.parse(switchedAt) + (config.credentialCacheSeconds + DROP_MARGIN_SECONDS) * 1000;
  return Math.max(0, Math.ceil((dropAt - now.getTime()) / 1000));
}

async function verifyAndSwitch(
  db: Db,
  config: Config,
  organizationKey: string,
  move: StatsMove,
  from: StatsDb,
  to: StatsDb,
  now: Date,
): Promise<MoveStatus> {
  const [before, after] = await Promise.all([
    moveDigest(from, move.organizationId, move.settledBefore),
    moveDigest(to, move.organizationId, move.settledBefore),
  ]);
  const differing = [...before.keys()].filter((k) => before.get(k) !== after.get(k));
  if (differing.length > 0) {
    const stopped = `the copy differs from the old shard in ${differing.join(", ")}: the move stopped, the organization stays on shard ${move.fromShard}`;
    await stopMove(db, move);
    console.error(
      JSON.stringify({
        level: "error",
        msg: "statistics move stopped",
        organization: organizationKey,
        differing,
      }),
    );
    return moveStatus(
      organizationKey,
      { ...move, phase: "done", toShard: move.fromShard },
      0,
      stopped,
    );
  }
  const at = now.toISOString();
  await switchStatsShard(db, move, at);
  // Cached reports are keyed by the statistics version: none answers from the old shard now.
  await statisticsChanged(db, move.organizationId);
  // The organization's record names its shard: this isolate reloads it (others within the bound).
  applyIsolateEffects({
    organizations: [{ organizationId: move.organizationId, networkId: null }],
  });
  console.log(
    JSON.stringify({
      msg: "statistics move: switched",
      organization: organizationKey,
      to_shard: move.toShard,
      rows_copied: move.rowsCopied,
    }),
  );
  return moveStatus(
    organizationKey,
    { ...move, phase: "drop", cursor: null, switchedAt: at, updatedAt: at },
    dropWaitSeconds(at, config, now),
  );
}

/** Undoes a move before its switch: the new shard's copy goes, the old shard counts again. */
async function stopMove(db: Db, move: StatsMove): Promise<void> {
  const to = statsShard(db, move.toShard);
  for (const table of SHARD_TABLES)
    while ((await dropRows(to, move.organizationId, table, 5_000)) > 0);
  await openShardTo(statsShard(db, move.fromShard), move.organizationId);
  await deleteStatsMove(db, move.organizationId);
}

/**
 * The shard a change of an organization's statistics other than events goes to (ecommerce items,
 * viewer erasure). While its statistics are being copied, such a change could be missed by the
 * copy or undone by it: it is refused for the few minutes a move takes.
 */
export async function statsForChange(db: Db, org: ShardedOrganization): Promise<StatsDb> {
  const move = await findStatsMove(db, org.id);
  if (move && (move.phase === "copy" || move.phase === "catch-up")) {
    throw conflict(
      `the statistics of this organization are moving to another database (${shardBindingName(move.toShard)}), which takes a few minutes: send this again later`,
    );
  }
  return statsDbOf(db, org);
}
