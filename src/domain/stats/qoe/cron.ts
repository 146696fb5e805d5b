// The cron's QoE housekeeping, every minute, bounded per run: views that asked to play and went
// silent without starting are judged exits before start (their contribution moves like a
// replay's); raw events of UTC days that are over, and views past QOE_VIEWS_KEPT_DAYS, are
// deleted; organizations with an open alert are judged even when no report arrives.
import { type Db, runBatch } from "../../../db/client";
import { addToDaily, idlePendingViews, purgeQoeRows, writeViews } from "../../../db/stats/qoe";
import { everyStatsShard } from "../../../db/stats/shards";
import { DAY_MS, utcDay } from "../../../shared/dates";
import type { EmitDeps } from "../../webhooks/emit";
import { judgeOpenAlerts } from "./alerts";
import { viewRow } from "./tally";
import {
  type Contribution,
  contributionDelta,
  contributionOf,
  scoresOf,
  type ViewFigures,
} from "./view";

/** A view that asked to play and sent nothing for this long without starting has left. */
export const IDLE_EXIT_MS = 60_000;
/** How long views are kept (GET /v2/analytics/qoe/views); the daily figures stay. */
export const QOE_VIEWS_KEPT_DAYS = 30;
const SWEEP_VIEWS_PER_RUN = 500;
const PURGE_ROWS_PER_RUN = 20_000;

/** Judges idle views in every shard (one transaction per shard, fenced like a replay). */
export async function closeIdleViews(db: Db, now: number): Promise<number> {
  let closed = 0;
  for (const { db: stats } of everyStatsShard(db)) {
    const idle = await idlePendingViews(stats, now - IDLE_EXIT_MS, SWEEP_VIEWS_PER_RUN);
    if (idle.length === 0) continue;
    const views = [];
    const daily = [];
    const startups = [];
    for (const v of idle) {
      const before = JSON.parse(v.contribution) as Contribution;
      const replayed = JSON.parse(v.figures) as ViewFigures;
      const figures = { ...replayed, exitedBeforeStart: true };
      const scored = { ...figures, scores: scoresOf(figures) };
      const contribution = contributionOf(scored);
      const delta = contributionDelta(before, contribution);
      const base = {
        organizationId: v.organizationId,
        date: v.date,
        contentKey: v.contentKey,
        country: v.country,
        deviceType: v.deviceType,
        playerId: v.playerId,
      };
      for (const [rendition, counters] of Object.entries(delta.rows))
        daily.push({ key: { ...base, rendition }, counters: counters as Record<string, number> });
      for (const [rendition, bucket, n] of delta.startup)
        startups.push({ key: { ...base, rendition, bucket }, counters: { views: n } });
      views.push({ ...viewRow(base, v.sessionId, scored, contribution, v), closed: 1 });
    }
    try {
      await runBatch(stats, [...writeViews(stats, views), ...addToDaily(stats, daily, startups)]);
      closed += views.length;
    } catch (err) {
      // A batch replayed one of them meanwhile: the next run sees what it wrote.
      console.error(
        JSON.stringify({
          level: "error",
          msg: "idle qoe views not closed",
          error: String(err).slice(0, 300),
        }),
      );
    }
  }
  return closed;
}

export async function runQoeCron(deps: EmitDeps) {
  const now = deps.now.getTime();
  const exits = await closeIdleViews(deps.db, now);
  const today = utcDay(now);
  const oldestView = utcDay(now - QOE_VIEWS_KEPT_DAYS * DAY_MS);
  let eventsPurged = 0;
  let viewsPurged = 0;
  for (const { db: stats } of everyStatsShard(deps.db)) {
    eventsPurged += await purgeQoeRows(stats, "events", today, PURGE_ROWS_PER_RUN);
    viewsPurged += await purgeQoeRows(stats, "views", oldestView, PURGE_ROWS_PER_RUN);
  }
  const judged = await judgeOpenAlerts(deps);
  return { exits, eventsPurged, viewsPurged, alertsJudged: judged.length };
}
