// QoE alerts (docs/qoe.md "Alerts"): an organization sets thresholds (PUT
// /v2/analytics/qoe/alerts); after each queue batch that counted its CMCD reports, and every
// minute from the cron while an alert is open, the views active in the last five minutes are
// judged, the organization's together and each video's alone. A window with at least `minViews`
// views that crosses a threshold opens an alert and sends qoe.degraded (through the webhook
// queue) with the figures and the worst dimension; back within every threshold with enough
// views, the alert closes and qoe.recovered is sent. One judgement per organization every
// EVALUATE_EVERY_MS, claimed in D1 (two isolates never judge the same window twice at once).
import type { Db } from "../../../db/client";
import { findOrganizationById } from "../../../db/organizations";
import {
  alertSettingsOf,
  claimEvaluation,
  closeAlert,
  latestAlerts,
  openAlert,
  openAlertsOf,
  organizationsWithOpenAlerts,
  type QoeAlert,
  type QoeAlertSettings,
  saveAlertSettings,
} from "../../../db/qoe";
import { recentViews } from "../../../db/stats/qoe";
import { statsDbOf } from "../../../db/stats/shards";
import { forbidden } from "../../../shared/errors";
import type { Caller } from "../../catalog/caller";
import { type EmitDeps, emitWebhookEvent } from "../../webhooks/emit";
import { exactPercentile, type ViewFigures } from "./view";

export const WINDOW_MS = 5 * 60_000;
export const EVALUATE_EVERY_MS = 10_000;
/** An open alert whose scope has had no views for this long closes. */
const SILENT_CLOSE_MS = 60 * 60_000;
const DEFAULT_MIN_VIEWS = 20;
/** Organization-wide: an alert's scope. */
const ORGANIZATION = "*";

type Metric = "failurePct" | "rebufferPct" | "startupMsP90";
const METRICS: Metric[] = ["failurePct", "rebufferPct", "startupMsP90"];

interface WindowView {
  contentKey: string;
  country: string;
  device: string;
  playerId: string;
  rendition: string;
  f: ViewFigures;
}

interface WindowFigures {
  views: number;
  failurePct: number | null;
  rebufferPct: number | null;
  startupMsP90: number | null;
}

const round = (x: number) => Math.round(x * 100) / 100;

function figuresOf(views: WindowView[]): WindowFigures {
  const failed = views.filter((v) => v.f.failed).length;
  const played = views.reduce((n, v) => n + v.f.playedMs, 0);
  const rebuffer = views.reduce((n, v) => n + v.f.rebufferMs, 0);
  const startups = views.flatMap((v) => (v.f.startupMs === null ? [] : [v.f.startupMs]));
  return {
    views: views.length,
    failurePct: views.length ? round((100 * failed) / views.length) : null,
    rebufferPct: played + rebuffer > 0 ? round((100 * rebuffer) / (played + rebuffer)) : null,
    startupMsP90: exactPercentile(startups, 0.9),
  };
}

function crossedOf(w: WindowFigures, s: QoeAlertSettings): Metric[] {
  const threshold: Record<Metric, number | null> = {
    failurePct: s.failurePct,
    rebufferPct: s.rebufferPct,
    startupMsP90: s.startupMsP90,
  };
  return METRICS.filter((m) => {
    const limit = threshold[m];
    const value = w[m];
    return limit !== null && value !== null && value >= limit;
  });
}

const DIMENSIONS = ["contentKey", "country", "device", "playerId", "rendition"] as const;

/** The value of a dimension whose views fare worst on `metric` (at least a fifth of minViews, and 2). */
function worstOf(views: WindowView[], metric: Metric, minViews: number, organizationWide: boolean) {
  const least = Math.max(2, Math.ceil(minViews / 5));
  let worst: { dimension: string; value: string; views: number; figure: number } | null = null;
  for (const dimension of DIMENSIONS) {
    if (dimension === "contentKey" && !organizationWide) continue;
    const groups = new Map<string, WindowView[]>();
    for (const v of views)
      (groups.get(v[dimension]) ?? groups.set(v[dimension], []).get(v[dimension])!).push(v);
    if (groups.size < 2) continue;
    for (const [value, members] of groups) {
      if (members.length < least) continue;
      const figure = figuresOf(members)[metric];
      if (figure === null) continue;
      if (
        !worst ||
        figure > worst.figure ||
        (figure === worst.figure && members.length > worst.views)
      )
        worst = { dimension, value, views: members.length, figure };
    }
  }
  return (
    worst && {
      dimension: worst.dimension,
      value: worst.value,
      views: worst.views,
      [metric]: worst.figure,
    }
  );
}

function settingsAnswer(s: QoeAlertSettings | undefined) {
  return s
    ? {
        enabled: s.enabled,
        minViews: s.minViews,
        failurePct: s.failurePct,
        rebufferPct: s.rebufferPct,
        startupMsP90: s.startupMsP90,
        perVideo: s.perVideo,
        windowMinutes: WINDOW_MS / 60_000,
      }
    : null;
}

function alertAnswer(a: QoeAlert) {
  const state = (a.closed ?? a.opened) as { figures?: WindowFigures };
  const opened = a.opened as {
    crossed?: string[];
    worst?: Record<string, unknown> | null;
    figures?: WindowFigures;
  };
  return {
    id: a.id,
    scope: a.scope === ORGANIZATION ? ("organization" as const) : ("video" as const),
    contentKey: a.scope === ORGANIZATION ? null : a.scope,
    open: a.closedAt === null,
    openedAt: a.openedAt,
    closedAt: a.closedAt,
    crossed: opened.crossed ?? [],
    figures: state.figures ?? { views: 0, failurePct: null, rebufferPct: null, startupMsP90: null },
    worst: opened.worst ?? null,
  };
}

function ownOrganization(caller: Caller) {
  if (caller.subOrg)
    throw forbidden("QoE alerts are the organization's: ask without X-Service-MMI-Key");
  return caller.org;
}

/** The thresholds and the latest alerts (open ones first). */
export async function qoeAlerts(db: Db, caller: Caller) {
  const org = ownOrganization(caller);
  const [[settings], alerts] = await Promise.all([
    alertSettingsOf(db, [org.id]),
    latestAlerts(db, org.id, 50),
  ]);
  return { settings: settingsAnswer(settings), alerts: alerts.map(alertAnswer) };
}

export async function setQoeAlerts(
  db: Db,
  caller: Caller,
  body: {
    enabled?: boolean;
    minViews?: number;
    failurePct?: number | null;
    rebufferPct?: number | null;
    startupMsP90?: number | null;
    perVideo?: boolean;
  },
  now: Date,
) {
  const org = ownOrganization(caller);
  await saveAlertSettings(db, {
    organizationId: org.id,
    enabled: body.enabled ?? true,
    minViews: body.minViews ?? DEFAULT_MIN_VIEWS,
    failurePct: body.failurePct ?? null,
    rebufferPct: body.rebufferPct ?? null,
    startupMsP90: body.startupMsP90 ?? null,
    perVideo: body.perVideo ?? true,
    updatedAt: now.toISOString(),
  });
  return qoeAlerts(db, caller);
}

/**
 * Judges the windows of these organizations (those with alerts on and not judged in the last
 * EVALUATE_EVERY_MS): opens and closes alerts and sends their webhooks. Never throws: a failed
 * judgement is logged and the next batch or cron run judges again.
 */
export async function judgeQoeAlerts(deps: EmitDeps, organizationIds: readonly number[]) {
  const { db } = deps;
  const now = deps.now.getTime();
  const judged: number[] = [];
  let all: QoeAlertSettings[];
  try {
    all = await alertSettingsOf(db, organizationIds);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "qoe alerts not judged",
        error: String(err).slice(0, 300),
      }),
    );
    return judged;
  }
  for (const settings of all) {
    try {
      if (!settings.enabled) continue;
      const claimed = await claimEvaluation(
        db,
        settings.organizationId,
        deps.now.toISOString(),
        new Date(now - EVALUATE_EVERY_MS).toISOString(),
      );
      if (!claimed) continue;
      const org = await findOrganizationById(db, settings.organizationId);
      if (!org) continue;
      await judge(deps, org, settings, now);
      judged.push(org.id);
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "qoe alerts not judged",
          organization_id: settings.organizationId,
          error: String(err).slice(0, 300),
        }),
      );
    }
  }
  return judged;
}

/** The cron: organizations with an open alert are judged even when no report arrives. */
export async function judgeOpenAlerts(deps: EmitDeps) {
  return judgeQoeAlerts(deps, await organizationsWithOpenAlerts(deps.db));
}

async function judge(
  deps: EmitDeps,
  org: { id: number; statsShard: number },
  settings: QoeAlertSettings,
  now: number,
) {
  const rows = await recentViews(statsDbOf(deps.db, org), org.id, now - WINDOW_MS);
  const views: WindowView[] = [];
  for (const r of rows) {
    const f = JSON.parse(r.figures) as ViewFigures;
    if (!f.attempted) continue;
    views.push({
      contentKey: r.contentKey,
      country: r.country,
      device: r.deviceType,
      playerId: r.playerId,
      rendition: f.startRendition,
      f,
    });
  }
  const scopes = new Map<string, WindowView[]>([[ORGANIZATION, views]]);
  if (settings.perVideo)
    for (const v of views)
      (scopes.get(v.contentKey) ?? scopes.set(v.contentKey, []).get(v.contentKey)!).push(v);
  const open = new Map((await openAlertsOf(deps.db, org.id)).map((a) => [a.scope, a]));
  for (const scope of new Set([...scopes.keys(), ...open.keys()])) {
    const members = scopes.get(scope) ?? [];
    const figures = figuresOf(members);
    const enough = figures.views >= settings.minViews;
    const crossed = enough ? crossedOf(figures, settings) : [];
    const alert = open.get(scope);
    const about = {
      scope: scope === ORGANIZATION ? "organization" : "video",
      contentKey: scope === ORGANIZATION ? null : scope,
      window: {
        from: new Date(now - WINDOW_MS).toISOString(),
        to: new Date(now).toISOString(),
        minutes: WINDOW_MS / 60_000,
      },
      thresholds: {
        minViews: settings.minViews,
        failurePct: settings.failurePct,
        rebufferPct: settings.rebufferPct,
        startupMsP90: settings.startupMsP90,
      },
      figures,
    };
    const at = new Date(now).toISOString();
    if (!alert && crossed.length > 0) {
      const data = {
        ...about,
        crossed,
        worst: worstOf(members, crossed[0]!, settings.minViews, scope === ORGANIZATION),
        openedAt: at,
      };
      const row = await openAlert(deps.db, {
        organizationId: org.id,
        scope,
        openedAt: at,
        opened: data,
      });
      if (row)
        await emitWebhookEvent(
          deps,
          { organizationId: org.id, subOrganizationId: null },
          "qoe.degraded",
          {
            alertId: row.id,
            ...data,
          },
        );
    } else if (alert) {
      const silent = figures.views === 0 && now - Date.parse(alert.openedAt) >= SILENT_CLOSE_MS;
      if (!(enough && crossed.length === 0) && !silent) continue;
      const data = {
        ...about,
        reason: silent ? "no views for an hour" : "within every threshold",
        openedAt: alert.openedAt,
        closedAt: at,
      };
      if (await closeAlert(deps.db, alert.id, at, data))
        await emitWebhookEvent(
          deps,
          { organizationId: org.id, subOrganizationId: null },
          "qoe.recovered",
          {
            alertId: alert.id,
            ...data,
          },
        );
    }
  }
}
