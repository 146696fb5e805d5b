// Data layer of the console's sessions (schema-console.ts): looked up by the hash of the token.
import { and, eq, lt, ne } from "drizzle-orm";
import type { Db } from "./client";
import { type ConsoleSession, consoleSessions } from "./schema-console";

export type { ConsoleSession };

export async function insertSession(db: Db, session: ConsoleSession): Promise<void> {
  await db.insert(consoleSessions).values(session);
}

/** The session with this token hash, whether expired or not (the caller decides). */
export async function findSession(db: Db, tokenHash: string): Promise<ConsoleSession | null> {
  const [row] = await db
    .select()
    .from(consoleSessions)
    .where(eq(consoleSessions.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash));
}

/** Ends every session of the organization except `keepTokenHash` (the one asking, if any). */
export async function deleteOrganizationSessions(
  db: Db,
  organizationId: number,
  keepTokenHash: string | null,
): Promise<void> {
  await db
    .delete(consoleSessions)
    .where(
      and(
        eq(consoleSessions.organizationId, organizationId),
        keepTokenHash ? ne(consoleSessions.tokenHash, keepTokenHash) : undefined,
      ),
    );
}

/** Forgets sessions that expired before `now` (the cron; console_sessions_expires_idx). */
export async function deleteExpiredSessions(db: Db, now: string): Promise<number> {
  const gone = await db
    .delete(consoleSessions)
    .where(lt(consoleSessions.expiresAt, now))
    .returning({ tokenHash: consoleSessions.tokenHash });
  return gone.length;
}
