// D1 schema of the QoE alerts (Drizzle; the catalog's migrations, hand-written in
// migrations/0040_qoe_alerts.sql): an organization's thresholds, and the alerts they opened
// (docs/qoe.md "Alerts"). The figures themselves live in the statistics shards.
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./schema";

/** An organization's thresholds: an alert opens when a rolling window crosses one of them. */
export const qoeAlertSettings = sqliteTable("qoe_alert_settings", {
  organizationId: integer("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** Views the window must hold before it is judged. */
  minViews: integer("min_views").notNull(),
  /** Thresholds, each optional: failure %, rebuffer % (of watch time), p90 startup (ms). */
  failurePct: real("failure_pct"),
  rebufferPct: real("rebuffer_pct"),
  startupMsP90: integer("startup_ms_p90"),
  /** Judge each video's window too, not only the organization's. */
  perVideo: integer("per_video", { mode: "boolean" }).notNull().default(true),
  /** When the windows were last judged (ISO): one judgement per organization every few seconds. */
  evaluatedAt: text("evaluated_at"),
  updatedAt: text("updated_at").notNull(),
});

/** An alert: open while `closed_at` is null; at most one open per organization and scope. */
export const qoeAlerts = sqliteTable(
  "qoe_alerts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** '*' for the organization's window, else the content key. */
    scope: text("scope").notNull(),
    openedAt: text("opened_at").notNull(),
    closedAt: text("closed_at"),
    /** The webhook payloads' data: the window's figures when it opened, and when it closed. */
    opened: text("opened", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    closed: text("closed", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex("qoe_alerts_open_idx").on(t.organizationId, t.scope).where(sql`closed_at is null`),
    index("qoe_alerts_org_idx").on(t.organizationId, t.openedAt),
  ],
);
