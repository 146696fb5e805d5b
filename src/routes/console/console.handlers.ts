import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import {
  SESSION_LIFETIME_MS,
  csrfTokenMatches,
  sessionIdentity,
  sessionView,
  signIn as openSession,
  signOut as endSession,
} from "../../domain/console/sessions";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import { ApiError, unauthorized } from "../../http/errors";
import type { AppRouteHandler } from "../../http/router";
import { fromOwnOrigin, SESSION_COOKIE } from "../../middleware/auth";
import { authenticationFailed } from "../../middleware/auth-failures";
import type * as routes from "./console.routes";

const cookieOptions = (c: Context<AppEnv>) =>
  ({
    httpOnly: true,
    secure: new URL(c.req.url).protocol === "https:",
    sameSite: "Strict",
    path: "/",
  }) as const;

export const signIn: AppRouteHandler<typeof routes.signIn> = async (c) => {
  // Login CSRF: a page of another site must not sign a visitor in to its own organization.
  if (c.req.header("Origin") !== undefined && !fromOwnOrigin(c))
    throw new ApiError(403, "sign-in from another origin refused");
  const opened = await openSession(requestDeps(c), c.req.valid("json"));
  if (!opened) throw authenticationFailed(c, unauthorized());
  setCookie(c, SESSION_COOKIE, opened.token, {
    ...cookieOptions(c),
    maxAge: SESSION_LIFETIME_MS / 1000,
  });
  c.header("Cache-Control", "no-store");
  return c.json(await sessionView(opened.identity, opened.token), 200);
};

async function currentSession(c: Context<AppEnv>) {
  const token = getCookie(c, SESSION_COOKIE);
  const identity = token ? await sessionIdentity(requestDeps(c), token) : null;
  if (!token || !identity) throw unauthorized("not signed in: no console session, or it has ended");
  return { token, identity };
}

export const current: AppRouteHandler<typeof routes.current> = async (c) => {
  const { token, identity } = await currentSession(c);
  c.header("Cache-Control", "no-store");
  return c.json(await sessionView(identity, token), 200);
};

export const status: AppRouteHandler<typeof routes.status> = async (c) => {
  // It answers the CSRF token: for this service's own pages only (CORS already keeps another
  // origin from reading it; this refuses the request outright).
  if (c.req.header("Origin") !== undefined && !fromOwnOrigin(c))
    throw new ApiError(403, "the session's status is not answered to another origin");
  const token = getCookie(c, SESSION_COOKIE);
  const identity = token ? await sessionIdentity(requestDeps(c), token) : null;
  c.header("Cache-Control", "no-store");
  if (!token || !identity) {
    // A cookie of a session that has ended is dropped, so the next visit sends none.
    if (token) deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
    return c.json({ signedIn: false, session: null }, 200);
  }
  return c.json({ signedIn: true, session: await sessionView(identity, token) }, 200);
};

export const signOut: AppRouteHandler<typeof routes.signOut> = async (c) => {
  const { token, identity } = await currentSession(c);
  const csrf = c.req.header("X-CSRF-Token");
  if (!csrf || !(await csrfTokenMatches(token, csrf)) || !fromOwnOrigin(c)) {
    throw new ApiError(
      403,
      "CSRF check failed: sign-out needs the session's X-CSRF-Token and this service's Origin",
    );
  }
  await endSession(requestDeps(c), identity.tokenHash);
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
  return c.json({ signedOut: true as const }, 200);
};
