// Members of an organization (docs/console.md "Members and roles"): invited by an owner or admin
// (a one-time link valid 7 days, emailed where the deployment can send mail), changed,
// suspended, removed, erased. The rules of who may touch whom: ./access.ts `mayManageRole`; an
// organization keeps at least one active owner once it has one.
import {
  countActiveOwners,
  deleteInvitation,
  deleteKeySessions,
  deleteMember,
  deleteMemberSessions,
  eraseInvitationEmails,
  findMember,
  findMemberByEmail,
  insertInvitation,
  listMemberSessions,
  listMembers,
  listOpenInvitations,
  listPasskeys,
  type Member,
  type MemberInvitation,
  updateMember,
} from "../../db/members";
import type { OrganizationWithNetwork } from "../../db/organizations";
import { updateOrganization } from "../../db/organizations";
import { randomAlphanumeric, randomToken, sha256Hex } from "../../shared/crypto";
import { conflict, forbidden, notFound } from "../../shared/errors";
import type { MemberRole, MemberStatus } from "../../shared/vocabulary";
import { eraseMemberFromAudit } from "../audit/audit";
import type { Deps } from "../deps";
import { forgetOrganization } from "../kept-lookups";
import { mayManageRole } from "./access";
import type { Principal } from "./principal";

/** An invitation link lives 7 days; a recovery link a day. */
export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RECOVERY_LIFETIME_MS = 86_400_000;

type MemberDeps = Pick<Deps, "db" | "now" | "origins" | "config">;

/** Sends one plain-text email (the INVITE_MAIL binding, when the deployment has one). */
export type Mailer = (message: { to: string; subject: string; text: string }) => Promise<void>;

export const memberView = (m: Member) => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role,
  status: m.status,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

const invitationView = (i: MemberInvitation) => ({
  id: i.id,
  kind: i.kind,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * The console's page where a link is opened: the secret travels in the fragment, never to a
 * server log. On the origin passkeys work on (in development `localhost`, not a loopback IP,
 * which WebAuthn refuses).
 */
const linkOf = (deps: MemberDeps, token: string) =>
  `${deps.config.passkeys.origins.at(-1) ?? deps.origins.baseUrl}/console/#/accept/${token}`;

export async function organizationMembers(deps: Pick<Deps, "db">, organizationId: number) {
  return (await listMembers(deps.db, organizationId)).map(memberView);
}

export async function openInvitations(deps: Pick<Deps, "db" | "now">, organizationId: number) {
  return (await listOpenInvitations(deps.db, organizationId, deps.now.toISOString())).map(
    invitationView,
  );
}

async function memberOf(deps: Pick<Deps, "db">, organizationId: number, memberId: string) {
  const member = await findMember(deps.db, memberId);
  if (!member || member.organizationId !== organizationId)
    throw notFound(`no member ${memberId.slice(0, 40)} in this organization`);
  return member;
}

/** What the audit log keeps before and after a member's change. */
export async function memberSnapshot(
  deps: Pick<Deps, "db">,
  organizationId: number,
  memberId: string,
) {
  const member = await findMember(deps.db, memberId);
  if (!member || member.organizationId !== organizationId) return null;
  return { name: member.name, email: member.email, role: member.role, status: member.status };
}

function refuseUnlessManages(who: Principal, role: MemberRole, doing: string) {
  if (!mayManageRole(who.role, role))
    throw forbidden(`only an owner can ${doing} an owner (your role: ${who.role})`);
}

async function newLink(
  deps: MemberDeps,
  org: OrganizationWithNetwork,
  who: Principal,
  values: Pick<MemberInvitation, "kind" | "email" | "role" | "memberId">,
  lifetimeMs: number,
) {
  const token = randomToken(32);
  const invitation: MemberInvitation = {
    ...values,
    id: `inv_${randomAlphanumeric(16)}`,
    organizationId: org.id,
    tokenHash: await sha256Hex(token),
    invitedBy: who.actor.name,
    createdAt: deps.now.toISOString(),
    expiresAt: new Date(deps.now.getTime() + lifetimeMs).toISOString(),
    acceptedAt: null,
  };
  await insertInvitation(deps.db, invitation);
  const link = linkOf(deps, token);
  // Local development: the link is printed where the developer runs the worker.
  if (deps.config.development)
    console.log(JSON.stringify({ msg: `${values.kind} link for ${values.email}`, link }));
  return { ...invitationView(invitation), link };
}

async function mail(mailer: Mailer | undefined, message: Parameters<Mailer>[0]) {
  if (!mailer) return false;
  try {
    await mailer(message);
    return true;
  } catch (err) {
    // The link is in the answer: whoever invited can pass it on.
    console.error(JSON.stringify({ msg: "invitation email not sent", error: String(err) }));
    return false;
  }
}

export async function invite(
  deps: MemberDeps,
  org: OrganizationWithNetwork,
  who: Principal,
  input: { email: string; role: MemberRole },
  mailer?: Mailer,
) {
  refuseUnlessManages(who, input.role, "invite");
  const email = normalEmail(input.email);
  if (await findMemberByEmail(deps.db, org.id, email))
    throw conflict(`email: ${email} is already a member of this organization`);
  const made = await newLink(
    deps,
    org,
    who,
    { kind: "invitation", email, role: input.role, memberId: null },
    INVITATION_LIFETIME_MS,
  );
  const emailed = await mail(mailer, {
    to: email,
    subject: `You are invited to ${org.name}'s video console`,
    text: `${who.actor.name} invites you to ${org.name}'s publisher console as ${input.role}.\n\nOpen this link within 7 days to accept and register your passkey (it works once):\n${made.link}\n`,
  });
  return { ...made, emailed };
}

export async function revokeInvitation(
  deps: Pick<Deps, "db">,
  organizationId: number,
  invitationId: string,
) {
  const gone = await deleteInvitation(deps.db, organizationId, invitationId);
  if (!gone) throw notFound(`no invitation ${invitationId.slice(0, 40)}`);
  return invitationView(gone);
}

/** A recovery link (an owner's or admin's): the member registers a new passkey with it. */
export async function recoveryLink(
  deps: MemberDeps,
  org: OrganizationWithNetwork,
  who: Principal,
  memberId: string,
  mailer?: Mailer,
) {
  const member = await memberOf(deps, org.id, memberId);
  refuseUnlessManages(who, member.role, "recover");
  const made = await newLink(
    deps,
    org,
    who,
    { kind: "recovery", email: member.email, role: member.role, memberId: member.id },
    RECOVERY_LIFETIME_MS,
  );
  const emailed = await mail(mailer, {
    to: member.email,
    subject: `A new passkey for ${org.name}'s video console`,
    text: `${who.actor.name} made you a link to register a new passkey. Open it within 24 hours (it works once):\n${made.link}\n`,
  });
  return { ...made, emailed };
}

/** Refuses a change that would leave an organization that has owners without an active one. */
async function keepAnOwner(deps: Pick<Deps, "db">, member: Member, losing: boolean) {
  if (!losing || member.role !== "owner" || member.status !== "active") return;
  if ((await countActiveOwners(deps.db, member.organizationId)) <= 1)
    throw conflict("the organization's last active owner cannot be removed, suspended or demoted");
}

export async function changeMember(
  deps: Pick<Deps, "db" | "now">,
  organizationId: number,
  who: Principal,
  memberId: string,
  changes: { name?: string; role?: MemberRole; status?: MemberStatus },
) {
  const member = await memberOf(deps, organizationId, memberId);
  refuseUnlessManages(who, member.role, "change");
  if (changes.role) refuseUnlessManages(who, changes.role, "make someone");
  const losing =
    (changes.role !== undefined && changes.role !== "owner") || changes.status === "suspended";
  await keepAnOwner(deps, member, losing);
  await updateMember(deps.db, member.id, { ...changes, updatedAt: deps.now.toISOString() });
  // A suspended member's sessions end now; their tokens are refused (the lookup sees the status).
  if (changes.status === "suspended") await deleteMemberSessions(deps.db, member.id);
  forgetOrganization(organizationId);
  return memberView({ ...member, ...changes, updatedAt: deps.now.toISOString() });
}

/** Removes the member: their sessions, tokens and passkeys go with them, at once. */
export async function removeMember(
  deps: Pick<Deps, "db">,
  organizationId: number,
  who: Principal,
  memberId: string,
) {
  const member = await memberOf(deps, organizationId, memberId);
  refuseUnlessManages(who, member.role, "remove");
  await keepAnOwner(deps, member, true);
  await deleteMember(deps.db, member.id);
  forgetOrganization(organizationId);
  return memberView(member);
}

/**
 * Erases a member's identity (their removal, if not done yet): the audit log keeps what they
 * did under their random id, without their name, and entries about them lose the values.
 */
export async function eraseMember(
  deps: Pick<Deps, "db">,
  organizationId: number,
  who: Principal,
  memberId: string,
) {
  const member = await findMember(deps.db, memberId);
  if (member && member.organizationId === organizationId) {
    await removeMember(deps, organizationId, who, memberId);
    await eraseInvitationEmails(deps.db, organizationId, member.email);
  }
  await eraseMemberFromAudit(deps, organizationId, memberId);
  return { erased: memberId };
}

export async function memberSessions(
  deps: Pick<Deps, "db" | "now">,
  organizationId: number,
  memberId: string,
) {
  await memberOf(deps, organizationId, memberId);
  return (await listMemberSessions(deps.db, memberId, deps.now.toISOString())).map(
    ({ tokenHash: _, ...s }) => s,
  );
}

export async function endMemberSessions(
  deps: Pick<Deps, "db">,
  organizationId: number,
  who: Principal,
  memberId: string,
) {
  const member = await memberOf(deps, organizationId, memberId);
  refuseUnlessManages(who, member.role, "sign out");
  await deleteMemberSessions(deps.db, member.id);
  return { memberId: member.id, sessionsEnded: true as const };
}

/** The organization's sign-in options. */
export function signInOptions(deps: Pick<Deps, "config">, org: OrganizationWithNetwork) {
  return { keySignIn: org.keySignIn, passkeys: true, access: deps.config.access !== undefined };
}

/**
 * Switches sign-in with the API key and secret on or off. Off needs an active owner with a
 * passkey (or SSO configured), so the organization cannot lock itself out.
 */
export async function setKeySignIn(
  deps: Pick<Deps, "db" | "config">,
  org: OrganizationWithNetwork,
  keySignIn: boolean,
) {
  if (!keySignIn && !deps.config.access) {
    const owners = (await listMembers(deps.db, org.id)).filter(
      (m) => m.role === "owner" && m.status === "active",
    );
    const withPasskey = await Promise.all(
      owners.map(async (o) => (await listPasskeys(deps.db, o.id)).length > 0),
    );
    if (!withPasskey.includes(true))
      throw conflict(
        "keySignIn: an active owner needs a passkey before sign-in with the API key and secret is switched off",
      );
  }
  await updateOrganization(deps.db, org.id, { keySignIn });
  if (!keySignIn) await deleteKeySessions(deps.db, org.id);
  forgetOrganization(org.id);
  return signInOptions(deps, { ...org, keySignIn });
}
