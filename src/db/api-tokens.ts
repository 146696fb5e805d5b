// Data layer of API tokens (schema.ts api_tokens): the organization's own token, members'
// personal tokens and applications' tokens. Looked up by the SHA-256 of the secret.
import { and, desc, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client";
import { apiTokens } from "./schema";
import { members } from "./schema-members";

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/** A token with the member who made it (null: the organization's own or an application's). */
export interface TokenCredential {
  id: number;
  organizationId: number;
  name: string;
  kind: ApiTokenRow["kind"];
  scope: ApiTokenRow["scope"];
  expiresAt: string | null;
  member: { id: string; name: string; role: string; status: string } | null;
}

export async function findTokenCredential(
  db: Db,
  tokenHash: string,
): Promise<TokenCredential | null> {
  const [row] = await db
    .select({
      id: apiTokens.id,
      organizationId: apiTokens.organizationId,
      name: apiTokens.name,
      kind: apiTokens.kind,
      scope: apiTokens.scope,
      expiresAt: apiTokens.expiresAt,
      // Aliased: the metered D1 driver keys raw rows by column name, and both tables have id and name.
      memberId: sql<string | null>`${members.id}`.as("member_key"),
      memberName: sql<string | null>`${members.name}`.as("member_name"),
      memberRole: sql<string | null>`${members.role}`.as("member_role"),
      memberStatus: sql<string | null>`${members.status}`.as("member_status"),
    })
    .from(apiTokens)
    .leftJoin(members, eq(members.id, apiTokens.memberId))
    .where(eq(apiTokens.tokenHash, tokenHash))
    .limit(1);
  if (!row) return null;
  const { memberId, memberName, memberRole, memberStatus, ...token } = row;
  return {
    ...token,
    member:
      memberId === null
        ? null
        : { id: memberId, name: memberName!, role: memberRole!, status: memberStatus! },
  };
}

export async function insertToken(
  db: Db,
  token: Omit<typeof apiTokens.$inferInsert, "id">,
): Promise<ApiTokenRow> {
  const [row] = await db.insert(apiTokens).values(token).returning();
  return row!;
}

/** The tokens a member made, or (memberId null) the organization's application tokens. */
export function listTokens(db: Db, organizationId: number, memberId: string | null) {
  return db
    .select()
    .from(apiTokens)
    .where(
      and(
        eq(apiTokens.organizationId, organizationId),
        memberId === null ? eq(apiTokens.kind, "application") : eq(apiTokens.memberId, memberId),
      ),
    )
    .orderBy(desc(apiTokens.id))
    .limit(500);
}

/** Deletes one of the tokens `listTokens` would list; the row deleted, or null. */
export async function deleteToken(
  db: Db,
  organizationId: number,
  memberId: string | null,
  tokenId: number,
): Promise<ApiTokenRow | null> {
  const owner: SQL =
    memberId === null
      ? and(eq(apiTokens.kind, "application"), isNull(apiTokens.memberId))!
      : eq(apiTokens.memberId, memberId);
  const [row] = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.organizationId, organizationId), eq(apiTokens.id, tokenId), owner))
    .returning();
  return row ?? null;
}
