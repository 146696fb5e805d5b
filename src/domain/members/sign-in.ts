// How a member signs in without a shared secret (docs/console.md "Signing in"): a passkey,
// registered when the invitation (or an owner's recovery link) is accepted, more than one per
// member; or the company's single sign-on through Cloudflare Access, whose JWT names an email
// that is a member's. Each opens a console session (../console/sessions.ts).
import {
  acceptInvitation,
  deleteExpiredChallenges,
  deleteExpiredInvitations,
  deleteMemberSession,
  deletePasskey,
  findInvitationByTokenHash,
  findMember,
  findPasskey,
  insertChallenge,
  insertPasskey,
  listMemberSessions,
  listPasskeys,
  type Member,
  type MemberInvitation,
  membersByEmail,
  type Passkey,
  passkeyUsed,
  takeChallenge,
} from "../../db/members";
import { findOrganizationById, type OrganizationWithNetwork } from "../../db/organizations";
import { base64url, randomAlphanumeric, sha256Hex } from "../../shared/crypto";
import { conflict, forbidden, invalid, notFound } from "../../shared/errors";
import { isolateStore } from "../../shared/isolate-memory";
import { openSession } from "../console/sessions";
import type { Deps } from "../deps";
import { fromBase64url } from "../playback/tokens";
import { normalEmail } from "./members";
import {
  type AuthenticationResponse,
  COSE_ALGORITHMS,
  type RegistrationResponse,
  verifyAuthentication,
  verifyRegistration,
} from "./webauthn";

type SignInDeps = Pick<Deps, "db" | "now" | "config">;

/** A ceremony's challenge is good for 5 minutes, once. */
const CHALLENGE_LIFETIME_MS = 5 * 60_000;
const RP_NAME = "Publisher console";

async function newChallenge(
  deps: SignInDeps,
  purpose: "register" | "sign-in",
  subject: string | null,
) {
  const challenge = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const id = `chl_${randomAlphanumeric(20)}`;
  await insertChallenge(deps.db, {
    id,
    challenge,
    purpose,
    subject,
    expiresAt: new Date(deps.now.getTime() + CHALLENGE_LIFETIME_MS).toISOString(),
  });
  return { id, challenge };
}

async function useChallenge(
  deps: SignInDeps,
  id: string,
  purpose: "register" | "sign-in",
  subject: string | null,
) {
  const row = await takeChallenge(deps.db, id, deps.now.toISOString());
  if (!row || row.purpose !== purpose || row.subject !== subject)
    throw invalid("challengeId: unknown, used or expired: ask for new options");
  return row.challenge;
}

const expected = (deps: SignInDeps, challenge: string) => ({
  challenge,
  rpId: deps.config.passkeys.rpId,
  origins: deps.config.passkeys.origins,
});

/** The WebAuthn user handle of a member: their id's bytes (no personal data). */
const userHandle = (memberId: string) => base64url(new TextEncoder().encode(memberId));

/** A member id made for an invitation (the passkey names it before the member exists). */
const memberIdFor = (invitation: MemberInvitation) =>
  invitation.memberId ?? `mem_${invitation.id.slice(4)}`;

function registrationOptions(
  deps: SignInDeps,
  challenge: string,
  user: { id: string; email: string; name: string },
  existing: Passkey[],
) {
  return {
    challenge,
    rp: { id: deps.config.passkeys.rpId, name: RP_NAME },
    user: { id: userHandle(user.id), name: user.email, displayName: user.name },
    pubKeyCredParams: COSE_ALGORITHMS.map((alg) => ({ type: "public-key" as const, alg })),
    timeout: CHALLENGE_LIFETIME_MS,
    attestation: "none" as const,
    authenticatorSelection: {
      residentKey: "required" as const,
      requireResidentKey: true,
      userVerification: "preferred" as const,
    },
    excludeCredentials: existing.map((p) => ({
      type: "public-key" as const,
      id: p.id,
      transports: p.transports,
    })),
  };
}

const passkeyView = (p: Passkey) => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
});

// Invitations and recovery links

async function openLink(deps: SignInDeps, token: string) {
  const invitation = await findInvitationByTokenHash(deps.db, await sha256Hex(token));
  if (
    !invitation ||
    invitation.acceptedAt !== null ||
    invitation.expiresAt <= deps.now.toISOString()
  )
    throw notFound("this link is unknown, already used or expired: ask for a new one");
  const org = await findOrganizationById(deps.db, invitation.organizationId);
  if (!org) throw notFound("this link's organization no longer exists");
  const member = invitation.memberId ? await findMember(deps.db, invitation.memberId) : null;
  if (invitation.kind === "recovery" && (!member || member.status !== "active"))
    throw notFound("this recovery link's member is no longer active");
  return { invitation, org, member };
}

/** What an invitation (or recovery) link is for, and the options to register a passkey with it. */
export async function invitationOptions(deps: SignInDeps, token: string) {
  const { invitation, org, member } = await openLink(deps, token);
  const { id, challenge } = await newChallenge(deps, "register", invitation.id);
  const existing = member ? await listPasskeys(deps.db, member.id) : [];
  return {
    kind: invitation.kind,
    organization: { name: org.name, organizationKey: org.organizationKey },
    email: invitation.email,
    role: invitation.role,
    name: member?.name ?? null,
    expiresAt: invitation.expiresAt,
    challengeId: id,
    options: registrationOptions(
      deps,
      challenge,
      {
        id: memberIdFor(invitation),
        email: invitation.email,
        name: member?.name ?? invitation.email,
      },
      existing,
    ),
  };
}

/**
 * Accepts the link: verifies the passkey registration, creates the member (an invitation) or
 * adds the passkey (a recovery), and opens a session. The link works once.
 */
export async function acceptWithPasskey(
  deps: SignInDeps,
  input: {
    token: string;
    name?: string;
    passkeyName?: string;
    challengeId: string;
    credential: RegistrationResponse;
    address: string | null;
  },
) {
  const { invitation, org, member: existing } = await openLink(deps, input.token);
  const challenge = await useChallenge(deps, input.challengeId, "register", invitation.id);
  const credential = await verifyRegistration(input.credential, expected(deps, challenge));
  if (await findPasskey(deps.db, credential.id))
    throw conflict("this passkey is registered already");
  const now = deps.now.toISOString();
  const member: Member = existing ?? {
    id: memberIdFor(invitation),
    organizationId: org.id,
    email: invitation.email,
    name: input.name?.trim() || invitation.email,
    role: invitation.role,
    status: "active",
    createdAt: now,
    updatedAt: now,
  };
  const passkey: Passkey = {
    ...credential,
    memberId: member.id,
    name: input.passkeyName?.trim() || "passkey",
    createdAt: now,
    lastUsedAt: now,
  };
  let accepted: boolean;
  try {
    accepted = await acceptInvitation(
      deps.db,
      invitation.id,
      now,
      existing ? null : member,
      passkey,
    );
  } catch {
    throw conflict(`email: ${invitation.email} is already a member of this organization`);
  }
  if (!accepted) throw notFound("this link is unknown, already used or expired: ask for a new one");
  return openSession(deps, {
    org,
    subOrg: null,
    member,
    method: "passkey",
    address: input.address,
  });
}

// Passkey sign-in

export async function passkeySignInOptions(deps: SignInDeps) {
  const { id, challenge } = await newChallenge(deps, "sign-in", null);
  return {
    challengeId: id,
    // Discoverable credentials: the authenticator offers the member's passkeys for this site.
    options: {
      challenge,
      rpId: deps.config.passkeys.rpId,
      timeout: CHALLENGE_LIFETIME_MS,
      userVerification: "preferred" as const,
      allowCredentials: [] as never[],
    },
  };
}

/** Null when the passkey is unknown or its member is not active (401, counted as a failure). */
export async function signInWithPasskey(
  deps: SignInDeps,
  input: { challengeId: string; credential: AuthenticationResponse; address: string | null },
) {
  const challenge = await useChallenge(deps, input.challengeId, "sign-in", null);
  const passkey = await findPasskey(deps.db, input.credential.id);
  if (!passkey) return null;
  const member = await findMember(deps.db, passkey.memberId);
  if (!member || member.status !== "active") return null;
  const { counter } = await verifyAuthentication(
    input.credential,
    expected(deps, challenge),
    passkey,
  );
  const org = await findOrganizationById(deps.db, member.organizationId);
  if (!org) return null;
  await passkeyUsed(deps.db, passkey.id, counter, deps.now.toISOString());
  return openSession(deps, {
    org,
    subOrg: null,
    member,
    method: "passkey",
    address: input.address,
  });
}

// A member's own passkeys and sessions

export async function ownPasskeys(deps: Pick<Deps, "db">, memberId: string) {
  return (await listPasskeys(deps.db, memberId)).map(passkeyView);
}

export async function newPasskeyOptions(deps: SignInDeps, member: Member) {
  const { id, challenge } = await newChallenge(deps, "register", member.id);
  return {
    challengeId: id,
    options: registrationOptions(deps, challenge, member, await listPasskeys(deps.db, member.id)),
  };
}

export async function addPasskey(
  deps: SignInDeps,
  member: Member,
  input: { challengeId: string; credential: RegistrationResponse; name?: string },
) {
  const challenge = await useChallenge(deps, input.challengeId, "register", member.id);
  const credential = await verifyRegistration(input.credential, expected(deps, challenge));
  if (await findPasskey(deps.db, credential.id))
    throw conflict("this passkey is registered already");
  const passkey: Passkey = {
    ...credential,
    memberId: member.id,
    name: input.name?.trim() || "passkey",
    createdAt: deps.now.toISOString(),
    lastUsedAt: null,
  };
  await insertPasskey(deps.db, passkey);
  return passkeyView(passkey);
}

/** A member keeps at least one passkey (else only a recovery link or SSO would sign them in). */
export async function removePasskey(deps: Pick<Deps, "db">, memberId: string, id: string) {
  const all = await listPasskeys(deps.db, memberId);
  if (!all.some((p) => p.id === id)) throw notFound(`no passkey ${id.slice(0, 60)} of yours`);
  if (all.length === 1)
    throw conflict("your last passkey cannot be deleted: register another one first");
  await deletePasskey(deps.db, memberId, id);
  return { deleted: id };
}

export async function ownSessions(
  deps: Pick<Deps, "db" | "now">,
  memberId: string,
  current: string,
) {
  return (await listMemberSessions(deps.db, memberId, deps.now.toISOString())).map(
    ({ tokenHash, ...s }) => ({ ...s, current: tokenHash === current }),
  );
}

export async function endOwnSession(deps: Pick<Deps, "db">, memberId: string, sessionId: string) {
  if (!(await deleteMemberSession(deps.db, memberId, sessionId)))
    throw notFound(`no session ${sessionId.slice(0, 40)} of yours`);
  return { ended: sessionId };
}

// Cloudflare Access

interface Jwk {
  kid?: string;
  kty: string;
  n?: string;
  e?: string;
  alg?: string;
}

/** The team's signing keys, kept 10 minutes (fetched again at once for a key id not seen). */
const accessKeys = isolateStore<Jwk[]>({
  name: "access signing keys",
  bytes: 64 * 1024,
  maxEntries: 4,
  maxAgeMs: 600_000,
  sizeOf: (keys) => JSON.stringify(keys).length,
});

async function teamKeys(certsUrl: string, nowMs: number, refresh: boolean): Promise<Jwk[]> {
  const kept = refresh ? undefined : accessKeys.get(certsUrl, nowMs);
  if (kept) return kept;
  const res = await fetch(certsUrl, { headers: { Accept: "application/json" } });
  if (!res.ok) throw forbidden(`Cloudflare Access: the team's keys answered ${res.status}`);
  const body = (await res.json()) as { keys?: Jwk[] };
  const keys = (body.keys ?? []).filter((k) => k.kty === "RSA" && k.n && k.e);
  accessKeys.set(certsUrl, keys, 600_000, nowMs);
  return keys;
}

const accessRefusal = (why: string) => forbidden(`Cloudflare Access sign-in refused: ${why}`);

function jwtPart(part: string | undefined, name: string): Record<string, unknown> {
  try {
    const value = JSON.parse(new TextDecoder().decode(fromBase64url(part ?? "")));
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // below
  }
  throw accessRefusal(`the assertion's ${name} is not base64url JSON`);
}

/** Verifies a `Cf-Access-Jwt-Assertion` (RS256, the team's keys, issuer, audience, time); its email. */
export async function verifyAccessAssertion(
  deps: SignInDeps,
  assertion: string,
  nowMs: number,
): Promise<string> {
  const access = deps.config.access;
  if (!access) throw forbidden("Cloudflare Access sign-in is not configured for this service");
  const parts = assertion.split(".");
  if (parts.length !== 3 || assertion.length > 8192) throw accessRefusal("not a JWT");
  const header = jwtPart(parts[0], "header");
  const claims = jwtPart(parts[1], "payload");
  if (header.alg !== "RS256") throw accessRefusal("only RS256 is accepted");
  let keys = await teamKeys(access.certsUrl, nowMs, false);
  let jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk) {
    keys = await teamKeys(access.certsUrl, nowMs, true);
    jwk = keys.find((k) => k.kid === header.kid);
  }
  if (!jwk) throw accessRefusal("signed with a key the team does not have");
  const key = await crypto.subtle.importKey(
    "jwk",
    { kty: "RSA", n: jwk.n, e: jwk.e },
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["verify"],
  );
  let signature: Uint8Array;
  try {
    signature = fromBase64url(parts[2]!);
  } catch {
    throw accessRefusal("the signature is not base64url");
  }
  const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
  if (!(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, signature, signed)))
    throw accessRefusal("the signature does not verify");
  if (claims.iss !== access.issuer) throw accessRefusal("another issuer than the team's");
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(access.audience)) throw accessRefusal("for another application");
  const seconds = nowMs / 1000;
  const skew = 60;
  if (typeof claims.exp !== "number" || claims.exp + skew <= seconds)
    throw accessRefusal("expired");
  if (typeof claims.nbf === "number" && claims.nbf - skew > seconds)
    throw accessRefusal("not valid yet");
  if (typeof claims.email !== "string" || !claims.email.includes("@"))
    throw accessRefusal("it names no email");
  return normalEmail(claims.email);
}

/** Signs in the member the Access assertion's email names (in `organizationKey`'s organization when there are several). */
export async function signInWithAccess(
  deps: SignInDeps,
  input: { assertion: string; organizationKey?: string; address: string | null },
) {
  const email = await verifyAccessAssertion(deps, input.assertion, deps.now.getTime());
  const candidates = (await membersByEmail(deps.db, email)).filter((m) => m.status === "active");
  const orgs = (
    await Promise.all(candidates.map((m) => findOrganizationById(deps.db, m.organizationId)))
  ).filter((o): o is OrganizationWithNetwork => o !== null);
  const chosen =
    input.organizationKey === undefined
      ? orgs
      : orgs.filter((o) => o.organizationKey === input.organizationKey);
  if (chosen.length === 0)
    throw forbidden(`Cloudflare Access sign-in refused: ${email} is not an active member here`);
  if (chosen.length > 1)
    throw conflict(
      `organizationKey: ${email} is a member of ${chosen.length} organizations (${chosen.map((o) => o.organizationKey).join(", ")}): name one`,
    );
  const org = chosen[0]!;
  const member = candidates.find((m) => m.organizationId === org.id)!;
  return openSession(deps, { org, subOrg: null, member, method: "access", address: input.address });
}

/** The member behind a principal: passkeys and sessions are a member's (the API key and secret is none). */
export async function memberBehind(
  deps: Pick<Deps, "db">,
  who: { memberId: string | null },
): Promise<Member> {
  const member = who.memberId ? await findMember(deps.db, who.memberId) : null;
  if (!member)
    throw forbidden(
      "passkeys and sessions belong to members: the organization's API key and secret (or its token) is not one",
    );
  return member;
}

/** The cron forgets expired challenges and links (a lookup refuses them already). */
export async function purgeExpiredSignInRows(deps: Pick<Deps, "db" | "now">): Promise<number> {
  const now = deps.now.toISOString();
  const [challenges, links] = await Promise.all([
    deleteExpiredChallenges(deps.db, now),
    deleteExpiredInvitations(deps.db, now),
  ]);
  return challenges + links;
}
