// Console sessions (docs/console.md "Security model"): a member signs in once (a passkey, or
// Cloudflare Access: ../members/sign-in.ts), or the owner with the organization's API key and
// secret (or its token) where the organization allows it; the browser then holds only a random
// session token in an HttpOnly cookie. The database keeps its SHA-256. The CSRF token is derived
// from the session token (a hash of it), so it needs no storage and no other site can compute
// it; every request the cookie authenticates must carry it. A member's session ends with the
// member (removed or suspended) at once: every request looks the session and member up.
import {
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
} from "../../db/console-sessions";
import { findMember, type Member } from "../../db/members";
import {
  findOrganizationById,
  listSubOrganizations,
  type OrganizationWithNetwork,
} from "../../db/organizations";
import type { SubOrganization } from "../../db/schema";
import { constantTimeEqual, randomAlphanumeric, randomToken, sha256Hex } from "../../shared/crypto";
import { forbidden } from "../../shared/errors";
import type { SignInMethod } from "../../shared/vocabulary";
import {
  organizationByKeyAndSecret,
  organizationByToken,
  subOrganizationOf,
} from "../authentication";
import type { Deps } from "../deps";
import { keyPrincipal, type Principal, principal } from "../members/principal";
import { tokenCredential } from "../tokens/tokens";

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
  /** Public id (ses_…); null for sessions opened before members existed. */
  id: string | null;
  method: SignInMethod;
  /** The member signed in; null: the owner's sign-in with the API key and secret. */
  member: Member | null;
  principal: Principal;
}

type SessionDeps = Pick<Deps, "db" | "now">;

export async function csrfTokenOf(sessionToken: string): Promise<string> {
  return sha256Hex(`console-csrf:v1:${sessionToken}`);
}

export async function csrfTokenMatches(sessionToken: string, given: string): Promise<boolean> {
  return constantTimeEqual(await csrfTokenOf(sessionToken), given);
}

/**
 * Checks the organization's own credentials and opens a session with the owner's rights. Null
 * when they are wrong (the route answers 401 and counts the failure); an MMI key of another
 * organization is wrong credentials too. 403 when the organization switched this sign-in off,
 * or for a member's or an application's token (a member signs in with a passkey or SSO).
 */
export async function signIn(deps: SessionDeps, input: SignInInput, address: string | null) {
  // Signing in checks the stored credentials, never the isolate's recent lookups: a rotated
  // secret opens no session.
  const lookups = { db: deps.db, nowMs: deps.now.getTime(), credentialCacheMs: 0 };
  if (input.apiToken !== undefined) {
    const token = await tokenCredential(lookups, input.apiToken);
    if (token && token.kind !== "organization")
      throw forbidden(
        "a member's or an application's API token does not sign in to the console: sign in with a passkey or your company's SSO",
      );
  }
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
  if (!org.keySignIn)
    throw forbidden(
      "sign-in with the API key and secret is switched off for this organization: sign in with a passkey or your company's SSO",
    );
  return openSession(deps, {
    org,
    subOrg,
    member: null,
    method: input.apiToken !== undefined ? "token" : "key",
    address,
  });
}

/** Opens a session for a member (or, member null, the organization's owner by its key). */
export async function openSession(
  deps: SessionDeps,
  who: {
    org: OrganizationWithNetwork;
    subOrg: SubOrganization | null;
    member: Member | null;
    method: SignInMethod;
    address: string | null;
  },
) {
  const token = randomToken(32);
  const expiresAt = new Date(deps.now.getTime() + SESSION_LIFETIME_MS).toISOString();
  const tokenHash = await sha256Hex(token);
  const id = `ses_${randomAlphanumeric(16)}`;
  await insertSession(deps.db, {
    tokenHash,
    organizationId: who.org.id,
    subOrganizationId: who.subOrg?.id ?? null,
    createdAt: deps.now.toISOString(),
    expiresAt,
    id,
    memberId: who.member?.id ?? null,
    method: who.method,
    address: who.address,
  });
  const identity: SessionIdentity = {
    org: who.org,
    subOrg: who.subOrg,
    tokenHash,
    expiresAt,
    id,
    method: who.method,
    member: who.member,
    principal: sessionPrincipal(who.org, who.member),
  };
  return { token, identity };
}

const sessionPrincipal = (org: OrganizationWithNetwork, member: Member | null) =>
  member
    ? principal({ type: "member", id: member.id, name: member.name }, member.id, member.role, null)
    : keyPrincipal(org.apiKey);

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
  const [org, member] = await Promise.all([
    findOrganizationById(deps.db, session.organizationId),
    session.memberId === null ? null : findMember(deps.db, session.memberId),
  ]);
  if (!org) return null;
  // A member suspended (or, by the cascade, removed) has no session left.
  if (session.memberId !== null && (!member || member.status !== "active")) return null;
  let subOrg: SubOrganization | null = null;
  if (session.subOrganizationId !== null) {
    subOrg =
      (await listSubOrganizations(deps.db, org.id)).find(
        (s) => s.id === session.subOrganizationId,
      ) ?? null;
    // The sub-organization is gone: the session must not widen to the whole organization.
    if (!subOrg) return null;
  }
  return {
    org,
    subOrg,
    tokenHash,
    expiresAt: session.expiresAt,
    id: session.id,
    method: session.method,
    member,
    principal: sessionPrincipal(org, member),
  };
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
    id: identity.id,
    method: identity.method,
    member: identity.member && {
      id: identity.member.id,
      name: identity.member.name,
      email: identity.member.email,
      role: identity.member.role,
    },
    role: identity.member?.role ?? ("owner" as const),
    capabilities: [...identity.principal.capabilities],
  };
}

/** The cron forgets expired sessions (a lookup already refuses them). */
export function purgeExpiredSessions(deps: Pick<Deps, "db" | "now">): Promise<number> {
  return deleteExpiredSessions(deps.db, deps.now.toISOString());
}
