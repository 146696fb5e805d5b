// Console sessions (docs/console.md "Security model"): the publisher proves write credentials
// once (API key + secret, or an API token, optionally narrowed by an MMI key); the browser then
// holds only a random session token in an HttpOnly cookie. The database keeps its SHA-256. The
// CSRF token is derived from the session token (a hash of it), so it needs no storage and no other
// site can compute it; every request the cookie authenticates must carry it.
import {
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
} from "../../db/console-sessions";
import {
  findOrganizationById,
  listSubOrganizations,
  type OrganizationWithNetwork,
} from "../../db/organizations";
import type { SubOrganization } from "../../db/schema";
import { constantTimeEqual, randomToken, sha256Hex } from "../../shared/crypto";
import {
  organizationByKeyAndSecret,
  organizationByToken,
  subOrganizationOf,
} from "../authentication";
import type { Deps } from "../deps";

/** A session lasts a working day at most; signing out or rotating credentials ends it sooner. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

/** An API token, or the sync code, API key and secret (the route's schema requires one or the other). */
export interface SignInInput {
  apiToken?: string;
  syncCode?: string;
  apiKey?: string;
  apiSecret?: string;
  mmiKey?: string;
}

export interface SessionIdentity {
  org: OrganizationWithNetwork;
  subOrg: SubOrganization | null;
  tokenHash: string;
  expiresAt: string;
}

type SessionDeps = Pick<Deps, "db" | "now">;

export async function csrfTokenOf(sessionToken: string): Promise<string> {
  return sha256Hex(`console-csrf:v1:${sessionToken}`);
}

export async function csrfTokenMatches(sessionToken: string, given: string): Promise<boolean> {
  return constantTimeEqual(await csrfTokenOf(sessionToken), given);
}

/**
 * Checks the credentials and opens a session. Null when they are wrong (the route answers 401
 * and counts the failure); an MMI key of another organization is wrong credentials too.
 */
export async function signIn(deps: SessionDeps, input: SignInInput) {
  // Signing in checks the stored credentials, never the isolate's recent lookups: a rotated
  // secret opens no session.
  const lookups = { db: deps.db, nowMs: deps.now.getTime(), credentialCacheMs: 0 };
  const org =
    input.apiToken !== undefined
      ? await organizationByToken(lookups, input.apiToken)
      : await organizationByKeyAndSecret(
          lookups,
          input.syncCode ?? "",
          input.apiKey ?? "",
          input.apiSecret ?? "",
        );
  if (!org) return null;
  const subOrg =
    input.mmiKey === undefined ? null : await subOrganizationOf(lookups, org, input.mmiKey);
  if (input.mmiKey !== undefined && !subOrg) return null;
  const token = randomToken(32);
  const expiresAt = new Date(deps.now.getTime() + SESSION_LIFETIME_MS).toISOString();
  const tokenHash = await sha256Hex(token);
  await insertSession(deps.db, {
    tokenHash,
    organizationId: org.id,
    subOrganizationId: subOrg?.id ?? null,
    createdAt: deps.now.toISOString(),
    expiresAt,
  });
  return { token, identity: { org, subOrg, tokenHash, expiresAt } satisfies SessionIdentity };
}

/** Who a session token stands for; null when unknown, signed out, revoked or expired. */
export async function sessionIdentity(
  deps: SessionDeps,
  token: string,
): Promise<SessionIdentity | null> {
  const tokenHash = await sha256Hex(token);
  const session = await findSession(deps.db, tokenHash);
  if (!session) return null;
  if (session.expiresAt <= deps.now.toISOString()) {
    await deleteSession(deps.db, tokenHash);
    return null;
  }
  const org = await findOrganizationById(deps.db, session.organizationId);
  if (!org) return null;
  let subOrg: SubOrganization | null = null;
  if (session.subOrganizationId !== null) {
    subOrg =
      (await listSubOrganizations(deps.db, org.id)).find(
        (s) => s.id === session.subOrganizationId,
      ) ?? null;
    // The sub-organization is gone: the session must not widen to the whole organization.
    if (!subOrg) return null;
  }
  return { org, subOrg, tokenHash, expiresAt: session.expiresAt };
}

export async function signOut(deps: Pick<Deps, "db">, tokenHash: string): Promise<void> {
  await deleteSession(deps.db, tokenHash);
}

/** What the console learns about its session: who it acts for (no secret) and its CSRF token. */
export async function sessionView(identity: SessionIdentity, token: string) {
  return {
    organizationKey: identity.org.organizationKey,
    name: identity.org.name,
    syncCode: identity.org.syncCode,
    subOrganization: identity.subOrg && {
      name: identity.subOrg.name,
      mmiKey: identity.subOrg.mmiKey,
    },
    csrfToken: await csrfTokenOf(token),
    expiresAt: identity.expiresAt,
  };
}

/** The cron forgets expired sessions (a lookup already refuses them). */
export function purgeExpiredSessions(deps: Pick<Deps, "db" | "now">): Promise<number> {
  return deleteExpiredSessions(deps.db, deps.now.toISOString());
}
