// GET /v2/analytics/qoe (the daily figures, per dimension) and GET /v2/analytics/qoe/views (a
// video's last views): read from the organization's statistics shard (docs/qoe.md).
import type { Db } from "../../../db/client";
import {
  type DailyFilter,
  dailySums,
  type QoeColumn,
  startupCounts,
  viewsOfContent,
} from "../../../db/stats/qoe";
import { statsDbOf } from "../../../db/stats/shards";
import { DAY_MS, dayRange, dayStart, utcDay } from "../../../shared/dates";
import { forbidden } from "../../../shared/errors";
import type { QoeCounter } from "../../../shared/qoe";
import type { Caller } from "../../catalog/caller";
import { percentileOf, type ViewFigures } from "./view";

/** The organization's own figures: a sub-organization's credentials see none of them. */
function organizationOf(caller: Caller) {
  if (caller.subOrg)
    throw forbidden(
      "QoE figures are the organization's: ask with its own credentials, without X-Service-MMI-Key",
    );
  return caller.org;
}

const COLUMN: Record<string, QoeColumn> = {
  date: "date",
  contentKey: "contentKey",
  country: "country",
  device: "deviceType",
  playerId: "playerId",
  rendition: "rendition",
};

type Sums = Record<QoeCounter, number>;

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const ratio = (a: number, b: number, scale = 1) => (b > 0 ? round((a / b) * scale) : null);

/** One row of figures from a group's sums and its startup histogram. */
export function figuresOf(key: string, s: Sums, startups: Map<number, number>) {
  const timed = [...startups.values()].reduce((a, b) => a + b, 0);
  return {
    key,
    views: s.views,
    startupMsP50: percentileOf(startups, 0.5),
    startupMsP90: percentileOf(startups, 0.9),
    startupMsP95: percentileOf(startups, 0.95),
    startupMsAverage: timed > 0 ? Math.round(s.startup_ms / timed) : null,
    exitsBeforeStartPct: ratio(s.exits_before_start, s.views, 100),
    failurePct: ratio(s.failed, s.views, 100),
    rebufferPct: ratio(s.rebuffer_ms, s.played_ms + s.rebuffer_ms, 100),
    rebufferFrequency: ratio(s.rebuffers, s.played_ms / 60_000),
    rebufferedViewsPct: ratio(s.rebuffered_views, s.started, 100),
    playedMs: s.played_ms,
    averageBitrateKbps: s.kbps_known_ms > 0 ? Math.round(s.kbps_ms / s.kbps_known_ms) : null,
    averageHeight: s.sized_ms > 0 ? Math.round(s.height_ms / s.sized_ms) : null,
    upscalePct: ratio(s.upscale_permille, s.quality_scored * 10),
    liveLatencyMs: s.live_views > 0 ? Math.round(s.live_latency_ms / s.live_views) : null,
    score: ratio(s.overall_score, s.overall_scored * 10),
    playbackSuccessScore: ratio(s.success_score, s.success_scored * 10),
    startupScore: ratio(s.startup_score, timed * 10),
    smoothnessScore: ratio(s.smoothness_score, s.started * 10),
    videoQualityScore: ratio(s.quality_score, s.quality_scored * 10),
  };
}

export type QoeFigures = ReturnType<typeof figuresOf>;

/** How each order puts the worst first. */
const WORST_FIRST: Record<string, (r: QoeFigures) => number> = {
  views: (r) => -r.views,
  score: (r) => r.score ?? Number.POSITIVE_INFINITY,
  failurePct: (r) => -(r.failurePct ?? -1),
  rebufferPct: (r) => -(r.rebufferPct ?? -1),
  startupMsP90: (r) => -(r.startupMsP90 ?? -1),
  exitsBeforeStartPct: (r) => -(r.exitsBeforeStartPct ?? -1),
};

export interface QoeQuery {
  from: string;
  to: string;
  contentKey?: string;
  country?: string;
  device?: string;
  playerId?: string;
  groupBy?: string;
  orderBy?: string;
  minViews?: number;
  limit?: number;
}

export async function qoeFigures(db: Db, caller: Caller, q: QoeQuery) {
  const org = organizationOf(caller);
  const range = dayRange(q.from, q.to, { start: "from", end: "to" });
  const stats = statsDbOf(db, org);
  const filter: DailyFilter = {
    organizationId: org.id,
    start: range.start,
    end: range.end,
    contentKey: q.contentKey,
    country: q.country,
    deviceType: q.device,
    playerId: q.playerId,
  };
  const by = q.groupBy ? COLUMN[q.groupBy]! : null;
  const [sums, counts] = await Promise.all([
    dailySums(stats, filter, by),
    startupCounts(stats, filter, by),
  ]);
  const histograms = new Map<string, Map<number, number>>();
  for (const c of counts) {
    const h = histograms.get(c.group) ?? histograms.set(c.group, new Map()).get(c.group)!;
    h.set(c.bucket, (h.get(c.bucket) ?? 0) + c.views);
  }
  let rows = sums
    .map(({ group, ...s }) =>
      figuresOf(String(group), s, histograms.get(String(group)) ?? new Map()),
    )
    .filter((r) => r.views > 0 && r.views >= (q.minViews ?? 0));
  const order = q.orderBy ?? (by === "date" ? null : "views");
  rows =
    order === null
      ? rows.sort((a, b) => a.key.localeCompare(b.key))
      : rows.sort((a, b) => WORST_FIRST[order]!(a) - WORST_FIRST[order]!(b) || b.views - a.views);
  return {
    from: range.start,
    to: range.end,
    groupBy: q.groupBy ?? null,
    rows: rows.slice(0, q.limit ?? 1000),
  };
}

/** A video's views that began in [from, to], the latest first (support: "this viewer in Brazil at 21:04"). */
export async function qoeViews(
  db: Db,
  caller: Caller,
  q: { contentKey: string; from?: string; to?: string; limit?: number },
  nowMs: number,
) {
  const org = organizationOf(caller);
  const to = q.to ?? utcDay(nowMs);
  const from = q.from ?? utcDay(dayStart(to)! - DAY_MS);
  const range = dayRange(from, to, { start: "from", end: "to" });
  const rows = await viewsOfContent(
    statsDbOf(db, org),
    org.id,
    q.contentKey,
    dayStart(range.start)!,
    dayStart(range.end)! + DAY_MS,
    q.limit ?? 50,
  );
  return {
    views: rows.map((r) => {
      const f = JSON.parse(r.figures) as ViewFigures;
      return {
        sessionId: r.sessionId,
        contentKey: r.contentKey,
        startedAt: new Date(r.firstAt).toISOString(),
        lastReportAt: new Date(r.lastAt).toISOString(),
        country: r.country,
        device: r.deviceType,
        playerId: r.playerId,
        state: f.lastState,
        attempted: f.attempted,
        started: f.started,
        startupMs: f.startupMs,
        exitedBeforeStart: f.exitedBeforeStart,
        failed: f.failed,
        errorCode: f.errorCode,
        rebuffers: f.rebuffers,
        rebufferMs: f.rebufferMs,
        playedMs: f.playedMs,
        averageBitrateKbps: f.averageKbps,
        averageHeight: f.averageHeight,
        upscalePct: f.upscale ? round(f.upscale.mean * 100) : null,
        liveLatencyMs: f.liveLatencyMs,
        renditions: f.renditions,
        score: f.scores.overall === null ? null : round(f.scores.overall),
      };
    }),
  };
}
