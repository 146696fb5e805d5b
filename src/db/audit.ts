// Data layer of the audit log (schema-members.ts audit_log): one row per write, read newest
// first by id (audit_log_org_idx; audit_log_member_idx and audit_log_object_idx for the
// filters that name a member or an object), purged by date (audit_log_at_idx).
import { and, desc, eq, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client";
import { type AuditChange, type AuditRow, auditLog } from "./schema-members";

export type { AuditChange, AuditRow };
export type NewAuditRow = Omit<AuditRow, "id">;

export async function insertAuditRow(db: Db, row: NewAuditRow): Promise<void> {
  await db.insert(auditLog).values(row);
}

export interface AuditFilter {
  organizationId: number;
  memberId?: string;
  objectType?: string;
  objectId?: string;
  action?: string;
  from?: string;
  to?: string;
  /** Entries older than this id (the cursor). */
  beforeId?: number;
  limit: number;
}

export function listAuditRows(db: Db, f: AuditFilter): Promise<AuditRow[]> {
  const conditions: (SQL | undefined)[] = [
    eq(auditLog.organizationId, f.organizationId),
    f.memberId !== undefined ? eq(auditLog.memberId, f.memberId) : undefined,
    f.objectType !== undefined ? eq(auditLog.objectType, f.objectType) : undefined,
    f.objectId !== undefined ? eq(auditLog.objectId, f.objectId) : undefined,
    f.action !== undefined ? eq(auditLog.action, f.action) : undefined,
    f.from !== undefined ? gte(auditLog.at, f.from) : undefined,
    f.to !== undefined ? lte(auditLog.at, f.to) : undefined,
    f.beforeId !== undefined ? lt(auditLog.id, f.beforeId) : undefined,
  ];
  return db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(f.limit);
}

/** Deletes up to `batch` entries older than `before` (the cron, 13 months); how many went. */
export async function purgeAuditRows(db: Db, before: string, batch: number): Promise<number> {
  const ids = db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(lt(auditLog.at, before))
    .limit(batch);
  const gone = await db
    .delete(auditLog)
    .where(inArray(auditLog.id, ids))
    .returning({ id: auditLog.id });
  return gone.length;
}

/**
 * Erases a member's identity from the log: entries they made keep the member's random id (so
 * they still count as one person's) but lose the name and the values they wrote (their own
 * name among them, at sign-up); entries about them lose the values.
 */
export async function eraseAuditIdentity(
  db: Db,
  organizationId: number,
  memberId: string,
): Promise<void> {
  await db.batch([
    db
      .update(auditLog)
      .set({
        actorName: "erased member",
        changes: sql`(select json_group_array(json_object('field', json_extract(value, '$.field'))) from json_each(${auditLog.changes}))`,
      })
      .where(and(eq(auditLog.organizationId, organizationId), eq(auditLog.memberId, memberId))),
    db
      .update(auditLog)
      .set({ changes: sql`'[{"field":"erased"}]'` })
      .where(
        and(
          eq(auditLog.organizationId, organizationId),
          eq(auditLog.objectType, "members"),
          eq(auditLog.objectId, memberId),
        ),
      ),
  ]);
}
