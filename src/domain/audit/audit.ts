// The audit log (docs/api.md "Audit log"): who (a member, a token, the API key and secret, the
// operator) did what (the route, the object, the fields changed: before and after for settings
// and rights), when, and from where (an address bucket, never the address). Entries are written
// by one middleware (src/middleware/audit.ts) after every successful write, read by owners and
// admins, kept 13 months (the cron), and a member's identity can be erased from them.
import {
  type AuditChange,
  type AuditRow,
  eraseAuditIdentity,
  insertAuditRow,
  listAuditRows,
  purgeAuditRows,
} from "../../db/audit";
import { invalid } from "../../shared/errors";
import type { Deps } from "../deps";
import type { Actor } from "../members/principal";

export type { AuditChange };

/** How long entries are kept. */
export const AUDIT_RETENTION_MONTHS = 13;
/** Entries the cron deletes per run at most (it runs every minute). */
const PURGE_BATCH = 5000;
/** A value kept before/after is cut to this many characters. */
const VALUE_MAX = 500;

export interface AuditEntry {
  organizationId: number;
  actor: Actor;
  memberId: string | null;
  action: string;
  object: { type: string; id: string | null };
  changes: AuditChange[];
  address: string | null;
}

const bounded = (value: unknown): unknown => {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text !== undefined && text.length > VALUE_MAX ? `${text.slice(0, VALUE_MAX)}…` : value;
};

export async function recordAudit(deps: Pick<Deps, "db" | "now">, entry: AuditEntry) {
  await insertAuditRow(deps.db, {
    organizationId: entry.organizationId,
    at: deps.now.toISOString(),
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    memberId: entry.memberId,
    action: entry.action,
    objectType: entry.object.type,
    objectId: entry.object.id,
    changes: entry.changes.slice(0, 100).map((c) => ({
      field: c.field,
      ...("before" in c && { before: bounded(c.before) }),
      ...("after" in c && { after: bounded(c.after) }),
    })),
    address: entry.address,
  });
}

/** The fields whose values differ between two snapshots, with both values. */
export function changedFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): AuditChange[] {
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...fields]
    .filter((f) => JSON.stringify(before?.[f]) !== JSON.stringify(after?.[f]))
    .map((field) => ({ field, before: before?.[field] ?? null, after: after?.[field] ?? null }));
}

export interface AuditQuery {
  member?: string;
  objectType?: string;
  objectId?: string;
  action?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

const entryView = (row: AuditRow) => ({
  id: String(row.id),
  at: row.at,
  actor: { type: row.actorType, id: row.actorId, name: row.actorName, memberId: row.memberId },
  action: row.action,
  object: { type: row.objectType, id: row.objectId },
  changes: row.changes,
  address: row.address,
});

export async function listAudit(deps: Pick<Deps, "db">, organizationId: number, query: AuditQuery) {
  let beforeId: number | undefined;
  if (query.cursor !== undefined) {
    beforeId = Number(query.cursor);
    if (!Number.isSafeInteger(beforeId) || beforeId < 1)
      throw invalid("cursor: must be the nextCursor of an earlier page");
  }
  const rows = await listAuditRows(deps.db, {
    organizationId,
    memberId: query.member,
    objectType: query.objectType,
    objectId: query.objectId,
    action: query.action,
    from: query.from,
    to: query.to,
    beforeId,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    entries: page.map(entryView),
    nextCursor: rows.length > query.limit ? String(page.at(-1)!.id) : null,
  };
}

/** The cron: entries older than 13 months go, a bounded batch per run. */
export function purgeOldAudit(deps: Pick<Deps, "db" | "now">): Promise<number> {
  const before = new Date(deps.now);
  before.setUTCMonth(before.getUTCMonth() - AUDIT_RETENTION_MONTHS);
  return purgeAuditRows(deps.db, before.toISOString(), PURGE_BATCH);
}

export function eraseMemberFromAudit(
  deps: Pick<Deps, "db">,
  organizationId: number,
  memberId: string,
) {
  return eraseAuditIdentity(deps.db, organizationId, memberId);
}
