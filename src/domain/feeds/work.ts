// The feed publisher's budget, in work rather than in feeds: D1 rows read and time spent. A
// queue message's pass and a cron run each stop when either runs out (after at least one feed)
// and leave the rest for the next pass; a 1,000-video feed and a 3-video feed cost what they
// cost, not "one feed" each. The caller supplies the clock: the domain reads none itself.

import type { Db } from "../../db/client";
import { addToCounters } from "../../db/cron-state";
import type { D1Meter } from "../../db/metered-d1";

export interface WorkLimits {
  ms: number;
  rowsRead: number;
}

export interface WorkSpent {
  ms: number;
  rowsRead: number;
  /** D1 rows written (reported, not budgeted). */
  rowsWritten?: number;
}

export interface WorkBudget {
  /** Whether the work done so far reached a limit (the publisher asks between feeds). */
  exhausted(): boolean;
  spent(): WorkSpent;
}

/** A budget over the rows `meter` counts (the metered database of the work) and `clock` (ms). */
export function workBudget(
  meter: Pick<D1Meter, "rowsRead" | "rowsWritten">,
  clock: () => number,
  limits: WorkLimits,
): WorkBudget {
  const startMs = clock();
  const startRows = meter.rowsRead;
  const startWritten = meter.rowsWritten;
  const spent = () => ({
    ms: clock() - startMs,
    rowsRead: meter.rowsRead - startRows,
    rowsWritten: meter.rowsWritten - startWritten,
  });
  return {
    spent,
    exhausted() {
      const s = spent();
      return s.ms >= limits.ms || s.rowsRead >= limits.rowsRead;
    },
  };
}

/** No limit (an operator's rebuild, answered when done). */
export const unlimitedBudget: WorkBudget = {
  exhausted: () => false,
  spent: () => ({ ms: 0, rowsRead: 0 }),
};

/**
 * Adds one run's work to the running totals in cron_state (feed_work_runs, _feeds, _patched,
 * _rows_read, _rows_written, _ms): what publishing costs over time, and what bench/feeds.mjs reads before and
 * after a write. `patched`: of the feeds, those patched rather than rebuilt.
 */
export async function recordFeedWork(
  db: Db,
  spent: WorkSpent,
  feeds: number,
  patched = 0,
): Promise<void> {
  await addToCounters(db, {
    feed_work_runs: 1,
    feed_work_feeds: feeds,
    feed_work_patched: patched,
    feed_work_rows_read: spent.rowsRead,
    feed_work_rows_written: spent.rowsWritten ?? 0,
    feed_work_ms: spent.ms,
  });
}
