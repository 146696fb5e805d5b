import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import {
  csrfTokenMatches,
  signOut as endSession,
  signIn as openSession,
  SESSION_LIFETIME_MS,
  type SessionIdentity,
  sessionIdentity,
  sessionView,
} from "../../domain/console/sessions";
import {
  acceptWithPasskey,
  invitationOptions,
  passkeySignInOptions,
  signInWithAccess,
  signInWithPasskey,
} from "../../domain/members/sign-in";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import { ApiError, unauthorized } from "../../http/errors";
import { clientIp } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { fromOwnOrigin, SESSION_COOKIE } from "../../middleware/auth";
import { authenticationFailed } from "../../middleware/auth-failures";
import { coarseAddress } from "../../shared/client-address";
import { credentialVersions } from "../../shared/versions";
import type * as routes from "./console.routes";

const cookieOptions = (c: Context<AppEnv>) =>
  ({
    httpOnly: true,
    secure: new URL(c.req.url).protocol === "https:",
    sameSite: "Strict",
    path: "/",
  }) as const;

/** Login CSRF: a page of another site must not sign a visitor in to its own organization. */
function refuseForeignOrigin(c: Context<AppEnv>) {
  if (c.req.header("Origin") !== undefined && !fromOwnOrigin(c))
    throw new ApiError(403, "sign-in from another origin refused");
}

const addressOf = (c: Context<AppEnv>) => {
  const ip = clientIp(c.req.raw);
  return ip ? coarseAddress(ip) : null;
};

/** A session opened: its cookie, who signed in (for the audit log), and what the page learns. */
async function signedIn(c: Context<AppEnv>, opened: { token: string; identity: SessionIdentity }) {
  const { identity } = opened;
  setCookie(c, SESSION_COOKIE, opened.token, {
    ...cookieOptions(c),
    maxAge: SESSION_LIFETIME_MS / 1000,
  });
  c.set("auth", {
    org: identity.org,
    subOrg: identity.subOrg,
    via: "write",
    sessionTokenHash: identity.tokenHash,
    principal: identity.principal,
    versions: credentialVersions(identity),
  });
  c.header("Cache-Control", "no-store");
  return c.json(await sessionView(identity, opened.token), 200);
}

export const signIn: AppRouteHandler<typeof routes.signIn> = async (c) => {
  refuseForeignOrigin(c);
  const opened = await openSession(requestDeps(c), c.req.valid("json"), addressOf(c));
  if (!opened) throw authenticationFailed(c, unauthorized());
  return signedIn(c, opened);
};

export const signInMethods: AppRouteHandler<typeof routes.signInMethods> = async (c) => {
  refuseForeignOrigin(c);
  return c.json(
    {
      passkeys: true,
      access: c.get("config").access !== undefined,
      accessAssertion: c.req.header("Cf-Access-Jwt-Assertion") !== undefined,
    },
    200,
  );
};

export const passkeyOptions: AppRouteHandler<typeof routes.passkeyOptions> = async (c) => {
  refuseForeignOrigin(c);
  c.header("Cache-Control", "no-store");
  return c.json(await passkeySignInOptions(requestDeps(c)), 200);
};

export const passkeySignIn: AppRouteHandler<typeof routes.passkeySignIn> = async (c) => {
  refuseForeignOrigin(c);
  const opened = await signInWithPasskey(requestDeps(c), {
    ...c.req.valid("json"),
    address: addressOf(c),
  });
  if (!opened)
    throw authenticationFailed(
      c,
      unauthorized("authentication failed: unknown passkey, or its member is not active"),
    );
  return signedIn(c, opened);
};

export const accessSignIn: AppRouteHandler<typeof routes.accessSignIn> = async (c) => {
  refuseForeignOrigin(c);
  const assertion = c.req.header("Cf-Access-Jwt-Assertion");
  if (!assertion)
    throw authenticationFailed(
      c,
      unauthorized(
        "authentication failed: no Cf-Access-Jwt-Assertion (is Cloudflare Access in front of the console?)",
      ),
    );
  const opened = await signInWithAccess(requestDeps(c), {
    assertion,
    organizationKey: c.req.valid("json").organizationKey,
    address: addressOf(c),
  });
  return signedIn(c, opened);
};

export const invitation: AppRouteHandler<typeof routes.invitation> = async (c) => {
  refuseForeignOrigin(c);
  c.header("Cache-Control", "no-store");
  return c.json(await invitationOptions(requestDeps(c), c.req.valid("json").token), 200);
};

export const acceptInvitation: AppRouteHandler<typeof routes.acceptInvitation> = async (c) => {
  refuseForeignOrigin(c);
  const opened = await acceptWithPasskey(requestDeps(c), {
    ...c.req.valid("json"),
    address: addressOf(c),
  });
  return signedIn(c, opened);
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
  c.set("auth", {
    org: identity.org,
    subOrg: identity.subOrg,
    via: "write",
    principal: identity.principal,
  });
  return c.json({ signedOut: true as const }, 200);
};
