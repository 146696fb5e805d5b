// Members of the organization, their invitations and recovery links, the organization's sign-in
// options, and a member's own passkeys and sessions (docs/api.md "Members and roles"). What each
// needs: src/middleware/route-access.ts. Errors {status: "KO", error}.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  creationOptions,
  invitation,
  invitationBody,
  invitationIdParams,
  invitationLink,
  member,
  memberChangeBody,
  memberIdParams,
  newPasskeyBody,
  ownSession,
  passkey,
  passkeyIdParams,
  sessionIdParams,
  sessionInfo,
  signInOptions,
  signInOptionsBody,
} from "../../schemas/members";

const base = { tags: ["Members"], security: SECURITY.write, middleware: credentials("write") };
const self = { ...base, tags: ["Your sign-in"] };

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/members",
  operationId: "listMembers",
  summary: "The organization's members",
  responses: {
    200: jsonContent(z.object({ members: z.array(member) }), "The members"),
    ...koErrors(401, 403, 429),
  },
});

export const invite = createRoute({
  ...base,
  method: "post",
  path: "/v2/members/invitations",
  operationId: "inviteMember",
  summary: "Invite someone by email with a role",
  description:
    "A one-time link valid 7 days (emailed with a mail binding; logged in development). Only an owner invites an owner.",
  request: { body: jsonBody(invitationBody) },
  responses: {
    200: jsonContent(invitationLink, "The invitation and its link (shown once)"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const invitations = createRoute({
  ...base,
  method: "get",
  path: "/v2/members/invitations",
  operationId: "listInvitations",
  summary: "Open invitations and recovery links (not accepted, not expired)",
  responses: {
    200: jsonContent(z.object({ invitations: z.array(invitation) }), "The open links"),
    ...koErrors(401, 403, 429),
  },
});

export const revokeInvitation = createRoute({
  ...base,
  method: "delete",
  path: "/v2/members/invitations",
  operationId: "revokeInvitation",
  summary: "Withdraw an invitation or recovery link (?id=)",
  request: { query: invitationIdParams },
  responses: {
    200: jsonContent(invitation, "The withdrawn link"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const change = createRoute({
  ...base,
  method: "patch",
  path: "/v2/members/{id}",
  operationId: "changeMember",
  summary: "Change a member's name or role, suspend or reinstate them",
  description: "Suspending ends their sessions at once. The last active owner stays (409).",
  request: { params: memberIdParams, body: jsonBody(memberChangeBody) },
  responses: {
    200: jsonContent(member, "The member"),
    ...koErrors(400, 401, 403, 404, 409, 413, 429),
  },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/members/{id}",
  operationId: "removeMember",
  summary: "Remove a member: their sessions end at once, their tokens and passkeys are deleted",
  request: { params: memberIdParams },
  responses: {
    200: jsonContent(member, "The removed member"),
    ...koErrors(400, 401, 403, 404, 409, 429),
  },
});

export const erase = createRoute({
  ...base,
  method: "post",
  path: "/v2/members/{id}/erase",
  operationId: "eraseMember",
  summary: "Erase a member's identity (removing them if still there)",
  description: "The audit log keeps their entries without their name or values.",
  request: { params: memberIdParams },
  responses: {
    200: jsonContent(z.object({ erased: z.string() }), "Erased"),
    ...koErrors(400, 401, 403, 404, 409, 429),
  },
});

export const recovery = createRoute({
  ...base,
  method: "post",
  path: "/v2/members/{id}/recovery",
  operationId: "memberRecoveryLink",
  summary: "A recovery link: the member registers a new passkey with it (one-time, 24 hours)",
  request: { params: memberIdParams },
  responses: {
    200: jsonContent(invitationLink, "The link (shown once)"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const memberSessions = createRoute({
  ...base,
  method: "get",
  path: "/v2/members/{id}/sessions",
  operationId: "listMemberSessions",
  summary: "A member's open console sessions",
  request: { params: memberIdParams },
  responses: {
    200: jsonContent(z.object({ sessions: z.array(sessionInfo) }), "The sessions"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const endMemberSessions = createRoute({
  ...base,
  method: "delete",
  path: "/v2/members/{id}/sessions",
  operationId: "endMemberSessions",
  summary: "Sign a member out everywhere",
  request: { params: memberIdParams },
  responses: {
    200: jsonContent(
      z.object({ memberId: z.string(), sessionsEnded: z.literal(true) }),
      "Signed out",
    ),
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const showSignIn = createRoute({
  ...base,
  tags: ["Organization"],
  method: "get",
  path: "/v2/organization/sign-in",
  operationId: "getSignInOptions",
  summary: "How the organization's people sign in to the console",
  responses: { 200: jsonContent(signInOptions, "The options"), ...koErrors(401, 403, 429) },
});

export const setSignIn = createRoute({
  ...base,
  tags: ["Organization"],
  method: "put",
  path: "/v2/organization/sign-in",
  operationId: "setSignInOptions",
  summary: "Switch console sign-in with the API key and secret on or off (owners)",
  description:
    "Off ends the sessions opened with them; the API keeps accepting them. Needs an owner with a passkey, or SSO (409).",
  request: { body: jsonBody(signInOptionsBody) },
  responses: {
    200: jsonContent(signInOptions, "The options"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const passkeys = createRoute({
  ...self,
  method: "get",
  path: "/v2/passkeys",
  operationId: "listPasskeys",
  summary: "Your passkeys",
  responses: {
    200: jsonContent(z.object({ passkeys: z.array(passkey) }), "Your passkeys"),
    ...koErrors(401, 403, 429),
  },
});

export const passkeyOptions = createRoute({
  ...self,
  method: "post",
  path: "/v2/passkeys/options",
  operationId: "newPasskeyOptions",
  summary: "Options to register another passkey (navigator.credentials.create)",
  responses: {
    200: jsonContent(creationOptions, "The options and their challenge's id (5 minutes, once)"),
    ...koErrors(401, 403, 429),
  },
});

export const addPasskey = createRoute({
  ...self,
  method: "post",
  path: "/v2/passkeys",
  operationId: "addPasskey",
  summary: "Register another passkey",
  request: { body: jsonBody(newPasskeyBody) },
  responses: {
    200: jsonContent(passkey, "The passkey"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const removePasskey = createRoute({
  ...self,
  method: "delete",
  path: "/v2/passkeys/{id}",
  operationId: "deletePasskey",
  summary: "Delete one of your passkeys (not the last one)",
  request: { params: passkeyIdParams },
  responses: {
    200: jsonContent(z.object({ deleted: z.string() }), "Deleted"),
    ...koErrors(400, 401, 403, 404, 409, 429),
  },
});

export const sessions = createRoute({
  ...self,
  method: "get",
  path: "/v2/sessions",
  operationId: "listOwnSessions",
  summary: "Your open console sessions",
  responses: {
    200: jsonContent(z.object({ sessions: z.array(ownSession) }), "Your sessions"),
    ...koErrors(401, 403, 429),
  },
});

export const endSession = createRoute({
  ...self,
  method: "delete",
  path: "/v2/sessions/{id}",
  operationId: "endOwnSession",
  summary: "End one of your sessions",
  request: { params: sessionIdParams },
  responses: {
    200: jsonContent(z.object({ ended: z.string() }), "Ended"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});
