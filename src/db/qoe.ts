// The catalog's side of the QoE figures: the renditions a player can be playing (to name the
// one a reported bit rate belongs to), and the alerts' thresholds and alerts (schema-qoe.ts).
import { and, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import { inList } from "./client";
import { contents } from "./schema";
import { qoeAlertSettings, qoeAlerts } from "./schema-qoe";
import { renditions } from "./schema-renditions";

export type QoeAlertSettings = typeof qoeAlertSettings.$inferSelect;
export type QoeAlert = typeof qoeAlerts.$inferSelect;

/** Per content key: the source's height and the ready rungs (height, peak kbit/s: the master playlist's BANDWIDTH). */
export async function streamVariants(
  db: Db,
  keys: readonly string[],
): Promise<
  Map<string, { sourceHeight: number | null; rungs: { height: number; kbps: number }[] }>
> {
  const out = new Map<
    string,
    { sourceHeight: number | null; rungs: { height: number; kbps: number }[] }
  >();
  if (keys.length === 0) return out;
  const rows = await db
    .select({
      contentKey: contents.contentKey,
      // Named apart: both tables call their column `height`.
      sourceHeight: sql<number | null>`${contents.height}`.as("source_height"),
      height: sql<number | null>`${renditions.height}`.as("rung_height"),
      peakBitrate: renditions.peakBitrate,
    })
    .from(contents)
    .leftJoin(
      renditions,
      and(eq(renditions.contentId, contents.id), eq(renditions.status, "ready")),
    )
    .where(inList(contents.contentKey, keys));
  for (const r of rows) {
    const entry = out.get(r.contentKey) ?? { sourceHeight: r.sourceHeight, rungs: [] };
    if (r.height !== null && r.peakBitrate !== null)
      entry.rungs.push({ height: r.height, kbps: r.peakBitrate / 1000 });
    out.set(r.contentKey, entry);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Alerts

export async function alertSettingsOf(
  db: Db,
  organizationIds: readonly number[],
): Promise<QoeAlertSettings[]> {
  if (organizationIds.length === 0) return [];
  return db
    .select()
    .from(qoeAlertSettings)
    .where(inArray(qoeAlertSettings.organizationId, [...organizationIds]));
}

export async function saveAlertSettings(
  db: Db,
  settings: Omit<QoeAlertSettings, "evaluatedAt">,
): Promise<void> {
  const { organizationId, ...rest } = settings;
  await db
    .insert(qoeAlertSettings)
    .values(settings)
    .onConflictDoUpdate({ target: qoeAlertSettings.organizationId, set: rest });
}

/**
 * Claims the judgement of an organization's windows: true for the one caller that moved
 * `evaluated_at` from before `dueBefore` to `now` (others judged them a moment ago).
 */
export async function claimEvaluation(
  db: Db,
  organizationId: number,
  now: string,
  dueBefore: string,
): Promise<boolean> {
  const claimed = await db
    .update(qoeAlertSettings)
    .set({ evaluatedAt: now })
    .where(
      and(
        eq(qoeAlertSettings.organizationId, organizationId),
        eq(qoeAlertSettings.enabled, true),
        or(isNull(qoeAlertSettings.evaluatedAt), lt(qoeAlertSettings.evaluatedAt, dueBefore)),
      ),
    )
    .returning({ id: qoeAlertSettings.organizationId });
  return claimed.length > 0;
}

export function openAlertsOf(db: Db, organizationId: number): Promise<QoeAlert[]> {
  return db
    .select()
    .from(qoeAlerts)
    .where(and(eq(qoeAlerts.organizationId, organizationId), isNull(qoeAlerts.closedAt)));
}

/** The organizations with an open alert (the cron judges their windows even without new reports). */
export async function organizationsWithOpenAlerts(db: Db): Promise<number[]> {
  const rows = await db
    .selectDistinct({ id: qoeAlerts.organizationId })
    .from(qoeAlerts)
    .where(isNull(qoeAlerts.closedAt));
  return rows.map((r) => r.id);
}

/** Opens an alert; null when one is open for the scope already (the partial unique index). */
export async function openAlert(
  db: Db,
  alert: {
    organizationId: number;
    scope: string;
    openedAt: string;
    opened: Record<string, unknown>;
  },
): Promise<QoeAlert | null> {
  const [row] = await db.insert(qoeAlerts).values(alert).onConflictDoNothing().returning();
  return row ?? null;
}

/** Closes an open alert; false when it was closed already. */
export async function closeAlert(
  db: Db,
  id: number,
  closedAt: string,
  closed: Record<string, unknown>,
): Promise<boolean> {
  const rows = await db
    .update(qoeAlerts)
    .set({ closedAt, closed })
    .where(and(eq(qoeAlerts.id, id), isNull(qoeAlerts.closedAt)))
    .returning({ id: qoeAlerts.id });
  return rows.length > 0;
}

/** The organization's latest alerts, open ones first. */
export function latestAlerts(db: Db, organizationId: number, limit: number): Promise<QoeAlert[]> {
  return db
    .select()
    .from(qoeAlerts)
    .where(eq(qoeAlerts.organizationId, organizationId))
    .orderBy(sql`${qoeAlerts.closedAt} is not null`, desc(qoeAlerts.openedAt))
    .limit(limit);
}
