// Data layer of members, their invitations, passkeys and the one-time WebAuthn challenges
// (schema-members.ts). Every lookup is by a primary key or an index of 0030_members.sql.
import { and, asc, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { consoleSessions } from "./schema-console";
import {
  authChallenges,
  type Member,
  type MemberInvitation,
  memberInvitations,
  members,
  type Passkey,
  passkeys,
} from "./schema-members";

export type { Member, MemberInvitation, Passkey };

export async function findMember(db: Db, memberId: string): Promise<Member | null> {
  const [row] = await db.select().from(members).where(eq(members.id, memberId)).limit(1);
  return row ?? null;
}

export async function findMemberByEmail(
  db: Db,
  organizationId: number,
  email: string,
): Promise<Member | null> {
  const [row] = await db
    .select()
    .from(members)
    .where(and(eq(members.organizationId, organizationId), eq(members.email, email)))
    .limit(1);
  return row ?? null;
}

/** The members, in any organization, with this email (Cloudflare Access names a person, not an organization). */
export function membersByEmail(db: Db, email: string): Promise<Member[]> {
  return db.select().from(members).where(eq(members.email, email)).limit(50);
}

export function listMembers(db: Db, organizationId: number): Promise<Member[]> {
  return db
    .select()
    .from(members)
    .where(eq(members.organizationId, organizationId))
    .orderBy(asc(members.createdAt), asc(members.id))
    .limit(1000);
}

export async function countActiveOwners(db: Db, organizationId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(members)
    .where(
      and(
        eq(members.organizationId, organizationId),
        eq(members.role, "owner"),
        eq(members.status, "active"),
      ),
    );
  return row?.n ?? 0;
}

export async function updateMember(
  db: Db,
  memberId: string,
  changes: Partial<Pick<Member, "name" | "role" | "status" | "email">> & { updatedAt: string },
): Promise<void> {
  await db.update(members).set(changes).where(eq(members.id, memberId));
}

/** Deletes the member: their passkeys, sessions and tokens go with them (cascade). */
export async function deleteMember(db: Db, memberId: string): Promise<void> {
  await db.delete(members).where(eq(members.id, memberId));
}

/** Ends the organization's sessions opened with its API key and secret (or its token). */
export async function deleteKeySessions(db: Db, organizationId: number): Promise<void> {
  await db
    .delete(consoleSessions)
    .where(
      and(eq(consoleSessions.organizationId, organizationId), isNull(consoleSessions.memberId)),
    );
}

/** Ends every console session of the member. */
export async function deleteMemberSessions(db: Db, memberId: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.memberId, memberId));
}

export function listMemberSessions(db: Db, memberId: string, now: string) {
  return db
    .select({
      id: consoleSessions.id,
      method: consoleSessions.method,
      address: consoleSessions.address,
      createdAt: consoleSessions.createdAt,
      expiresAt: consoleSessions.expiresAt,
      tokenHash: consoleSessions.tokenHash,
    })
    .from(consoleSessions)
    .where(and(eq(consoleSessions.memberId, memberId), gt(consoleSessions.expiresAt, now)))
    .orderBy(desc(consoleSessions.createdAt))
    .limit(100);
}

export async function deleteMemberSession(
  db: Db,
  memberId: string,
  sessionId: string,
): Promise<boolean> {
  const gone = await db
    .delete(consoleSessions)
    .where(and(eq(consoleSessions.memberId, memberId), eq(consoleSessions.id, sessionId)))
    .returning({ id: consoleSessions.id });
  return gone.length > 0;
}

// Invitations and recovery links

export async function insertInvitation(db: Db, invitation: MemberInvitation): Promise<void> {
  await db.insert(memberInvitations).values(invitation);
}

export async function findInvitationByTokenHash(
  db: Db,
  tokenHash: string,
): Promise<MemberInvitation | null> {
  const [row] = await db
    .select()
    .from(memberInvitations)
    .where(eq(memberInvitations.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

/** Open invitations of the organization (not accepted, not expired), newest first. */
export function listOpenInvitations(db: Db, organizationId: number, now: string) {
  return db
    .select()
    .from(memberInvitations)
    .where(
      and(
        eq(memberInvitations.organizationId, organizationId),
        isNull(memberInvitations.acceptedAt),
        gt(memberInvitations.expiresAt, now),
      ),
    )
    .orderBy(desc(memberInvitations.createdAt))
    .limit(200);
}

export async function deleteInvitation(
  db: Db,
  organizationId: number,
  invitationId: string,
): Promise<MemberInvitation | null> {
  const [row] = await db
    .delete(memberInvitations)
    .where(
      and(
        eq(memberInvitations.organizationId, organizationId),
        eq(memberInvitations.id, invitationId),
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * Claims the invitation (the update wins once: a second acceptance of the same link finds it
 * used), then creates the member (an invitation) and its passkey together; if that fails the
 * claim is given back, so the link can be used again.
 */
export async function acceptInvitation(
  db: Db,
  invitationId: string,
  now: string,
  member: Member | null,
  passkey: Passkey,
): Promise<boolean> {
  const taken = await db
    .update(memberInvitations)
    .set({ acceptedAt: now })
    .where(and(eq(memberInvitations.id, invitationId), isNull(memberInvitations.acceptedAt)))
    .returning({ id: memberInvitations.id });
  if (taken.length === 0) return false;
  try {
    if (member)
      await db.batch([db.insert(members).values(member), db.insert(passkeys).values(passkey)]);
    else await db.insert(passkeys).values(passkey);
  } catch (err) {
    await db
      .update(memberInvitations)
      .set({ acceptedAt: null })
      .where(eq(memberInvitations.id, invitationId));
    throw err;
  }
  return true;
}

/** Forgets expired invitation rows (the cron) and accepted ones older than `acceptedBefore`. */
export async function deleteExpiredInvitations(db: Db, now: string): Promise<number> {
  const gone = await db
    .delete(memberInvitations)
    .where(lt(memberInvitations.expiresAt, now))
    .returning({ id: memberInvitations.id });
  return gone.length;
}

/** Replaces the email of the member's invitations (erasure). */
export async function eraseInvitationEmails(db: Db, organizationId: number, email: string) {
  await db
    .update(memberInvitations)
    .set({ email: "erased" })
    .where(
      and(eq(memberInvitations.organizationId, organizationId), eq(memberInvitations.email, email)),
    );
}

// Passkeys

export async function findPasskey(db: Db, credentialId: string): Promise<Passkey | null> {
  const [row] = await db.select().from(passkeys).where(eq(passkeys.id, credentialId)).limit(1);
  return row ?? null;
}

export function listPasskeys(db: Db, memberId: string): Promise<Passkey[]> {
  return db
    .select()
    .from(passkeys)
    .where(eq(passkeys.memberId, memberId))
    .orderBy(asc(passkeys.createdAt))
    .limit(100);
}

export async function insertPasskey(db: Db, passkey: Passkey): Promise<void> {
  await db.insert(passkeys).values(passkey);
}

export async function passkeyUsed(db: Db, credentialId: string, counter: number, now: string) {
  await db.update(passkeys).set({ counter, lastUsedAt: now }).where(eq(passkeys.id, credentialId));
}

export async function deletePasskey(
  db: Db,
  memberId: string,
  credentialId: string,
): Promise<boolean> {
  const gone = await db
    .delete(passkeys)
    .where(and(eq(passkeys.memberId, memberId), eq(passkeys.id, credentialId)))
    .returning({ id: passkeys.id });
  return gone.length > 0;
}

// One-time challenges

export async function insertChallenge(
  db: Db,
  challenge: typeof authChallenges.$inferInsert,
): Promise<void> {
  await db.insert(authChallenges).values(challenge);
}

/** Takes the challenge (deleted whatever follows): null when unknown, used or expired. */
export async function takeChallenge(db: Db, id: string, now: string) {
  const [row] = await db.delete(authChallenges).where(eq(authChallenges.id, id)).returning();
  return row && row.expiresAt > now ? row : null;
}

export async function deleteExpiredChallenges(db: Db, now: string): Promise<number> {
  const gone = await db
    .delete(authChallenges)
    .where(lt(authChallenges.expiresAt, now))
    .returning({ id: authChallenges.id });
  return gone.length;
}
