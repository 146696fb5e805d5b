// The publisher console's sessions (docs/console.md): sign in with write credentials, learn
// the session (after a reload), sign out. Errors {status: "KO", error}.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { consoleSession, consoleSessionStatus, signInBody } from "../../schemas/console";

const base = { tags: ["Console"] };
const cookieNote =
  "The session token travels only in the HttpOnly, SameSite=Strict evc_session cookie (Secure over https); it authenticates the write endpoints in place of credential headers when X-CSRF-Token carries the session's csrfToken.";

export const signIn = createRoute({
  ...base,
  method: "post",
  path: "/v2/console/session",
  operationId: "consoleSignIn",
  security: SECURITY.public,
  summary: "Sign in to the console",
  description: `Checks write credentials (sync code, API key and secret, or an API token; with mmiKey, a sub-organization's scope) and opens a session of 8 hours at most. ${cookieNote} A browser request from another origin is refused.`,
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
  responses: {
    200: jsonContent(z.object({ signedOut: z.literal(true) }), "Signed out"),
    ...koErrors(401, 403),
  },
});
