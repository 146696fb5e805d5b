// The text index's upkeep, run by the cron: once a UTC day its segments are merged into one, in
// bounded steps (a few per run, each writing at most PAGES_PER_STEP pages) until a step finds
// nothing to merge. A merged index costs every search less (db/fts.ts mergeTextIndexStep); the
// daily merge rewrites the index about once (bulk catalog, 100,000 videos: ~2,700 pages).

import type { Db } from "../db/client";
import { readState, writeState } from "../db/cron-state";
import { mergeTextIndexStep } from "../db/fts";
import { utcDay } from "../shared/dates";

const STATE = "text-index-merged";
const PAGES_PER_STEP = 500;
const STEPS_PER_RUN = 4;

export interface TextIndexUpkeep {
  /** Merge steps that wrote pages this run. */
  steps: number;
  /** The index is merged for today. */
  done: boolean;
}

export async function keepTextIndexMerged(
  db: Db,
  now: Date,
  stepsPerRun = STEPS_PER_RUN,
): Promise<TextIndexUpkeep> {
  const today = utcDay(now.getTime());
  if ((await readState(db, STATE)) === today) return { steps: 0, done: true };
  for (let steps = 0; steps < stepsPerRun; steps++) {
    if (!(await mergeTextIndexStep(db, PAGES_PER_STEP))) {
      await writeState(db, STATE, today);
      return { steps, done: true };
    }
  }
  return { steps: stepsPerRun, done: false };
}
