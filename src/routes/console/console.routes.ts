// The publisher console's sessions (docs/console.md): sign in with write credentials, learn
// the session (after a reload), sign out. Errors {status: "KO", error}.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { auditWrites } from "../../middleware/audit";
import { publicReads } from "../../middleware/public-reads";
import { consoleSession, consoleSessionStatus, signInBody } from "../../schemas/console";
import {
  accessSignInBody,
  creationOptions,
  invitationAcceptBody,
  invitationDetails,
  invitationLookupBody,
  passkeySignInBody,
} from "../../schemas/members";

const base = { tags: ["Console"] };
/** Sign-in routes: their handler says who signed in, and the audit log records it. */
const signingIn = { ...base, security: SECURITY.public, middleware: auditWrites };
const cookieNote =
  "The session token travels only in the HttpOnly, SameSite=Strict evc_session cookie (Secure over https); it authenticates the write endpoints in place of credential headers when X-CSRF-Token carries the session's csrfToken.";

export const signIn = createRoute({
  ...signingIn,
  method: "post",
  path: "/v2/console/session",
  operationId: "consoleSignIn",
  summary: "Sign in to the console with the organization's key and secret (the owner)",
  description: `Checks the organization's own credentials (sync code, API key and secret, or the organization's API token; with mmiKey, a sub-organization's scope) and opens a session of 8 hours at most with the owner's rights; 403 when the organization switched this off, or for a member's token. ${cookieNote}`,
  request: { body: jsonBody(signInBody) },
  responses: {
    200: jsonContent(consoleSession, "Signed in (Set-Cookie: evc_session)"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});

export const current = createRoute({
  ...base,
  method: "get",
  path: "/v2/console/session",
  operationId: "consoleSession",
  security: SECURITY.session,
  summary: "The current console session",
  description: `Who the session cookie signs in, and its CSRF token (a page reloaded learns it here). ${cookieNote}`,
  responses: { 200: jsonContent(consoleSession, "The session"), ...koErrors(401) },
});

export const status = createRoute({
  ...base,
  method: "get",
  path: "/v2/console/session/status",
  operationId: "consoleSessionStatus",
  security: SECURITY.public,
  summary: "Whether a console session is open (200 either way)",
  description: `What the console's page asks when it opens: {signedIn: false, session: null} without a session (no cookie, or one that has ended or expired, which is then cleared), else the session with its CSRF token, as GET /v2/console/session answers it. A request with an Origin of another site is refused. A page that is signed out learns it without a failed request. ${cookieNote}`,
  responses: { 200: jsonContent(consoleSessionStatus, "Signed in or not"), ...koErrors(403) },
});

export const signOut = createRoute({
  ...base,
  method: "delete",
  path: "/v2/console/session",
  operationId: "consoleSignOut",
  security: [{ consoleSession: [], csrfToken: [] }],
  summary: "Sign out: the session ends on the server and the cookie is cleared",
  description: "Needs the session's X-CSRF-Token and an Origin of this service.",
  middleware: auditWrites,
  responses: {
    200: jsonContent(z.object({ signedOut: z.literal(true) }), "Signed out"),
    ...koErrors(401, 403),
  },
});

export const signInMethods = createRoute({
  ...base,
  method: "get",
  path: "/v2/console/sign-in",
  operationId: "consoleSignInMethods",
  security: SECURITY.public,
  summary: "How one can sign in to this service's console",
  responses: {
    200: jsonContent(
      z.object({
        passkeys: z.boolean(),
        access: z.boolean().openapi({ description: "Cloudflare Access SSO is configured" }),
        accessAssertion: z.boolean().openapi({
          description: "This request came through Cloudflare Access (its JWT is there)",
        }),
      }),
      "The methods",
    ),
    ...koErrors(403),
  },
});

export const passkeyOptions = createRoute({
  ...base,
  method: "post",
  path: "/v2/console/passkey/options",
  operationId: "consolePasskeyOptions",
  security: SECURITY.public,
  // Each answer stores a challenge: counted per address like the other public work.
  middleware: publicReads,
  summary: "Options to sign in with a passkey (navigator.credentials.get)",
  responses: {
    200: jsonContent(creationOptions, "The options and their challenge's id (5 minutes, once)"),
    ...koErrors(403, 429),
  },
});

export const passkeySignIn = createRoute({
  ...signingIn,
  method: "post",
  path: "/v2/console/passkey",
  operationId: "consolePasskeySignIn",
  summary: "Sign in with a passkey",
  description: `The authenticator's answer to the options' challenge. A passkey of a suspended or removed member answers 401. ${cookieNote}`,
  request: { body: jsonBody(passkeySignInBody) },
  responses: {
    200: jsonContent(consoleSession, "Signed in (Set-Cookie: evc_session)"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});

export const accessSignIn = createRoute({
  ...signingIn,
  method: "post",
  path: "/v2/console/access",
  operationId: "consoleAccessSignIn",
  summary: "Sign in through Cloudflare Access (single sign-on)",
  description: `Verifies the request's Cf-Access-Jwt-Assertion (team keys, ACCESS_TEAM_DOMAIN, ACCESS_AUD); its email must be an active member's. ${cookieNote}`,
  request: { body: jsonBody(accessSignInBody) },
  responses: {
    200: jsonContent(consoleSession, "Signed in (Set-Cookie: evc_session)"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const invitation = createRoute({
  ...base,
  method: "post",
  path: "/v2/console/invitation",
  operationId: "consoleInvitation",
  security: SECURITY.public,
  middleware: publicReads,
  summary: "What an invitation or recovery link is for, with the options to register a passkey",
  description:
    "The link's token is its credential (sent in the body, never in a URL the server logs).",
  request: { body: jsonBody(invitationLookupBody) },
  responses: {
    200: jsonContent(invitationDetails, "The link's organization, email, role and options"),
    ...koErrors(400, 403, 404, 413, 429),
  },
});

export const acceptInvitation = createRoute({
  ...signingIn,
  method: "post",
  path: "/v2/console/invitation/accept",
  operationId: "consoleAcceptInvitation",
  summary: "Accept an invitation (or recovery link) with a new passkey, and sign in",
  description: `Registers the passkey, creates the member (an invitation) and opens a session. The link works once. ${cookieNote}`,
  request: { body: jsonBody(invitationAcceptBody) },
  responses: {
    200: jsonContent(consoleSession, "Signed in (Set-Cookie: evc_session)"),
    ...koErrors(400, 403, 404, 409, 413, 429),
  },
});
