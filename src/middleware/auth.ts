// Authentication per docs/design.md: which organization (and sub-organization) a request acts for.
//   read:   X-Service-Sync-Code                                             (E6, E7)
//   report: ?organization_key and X-Service-Sync-Code of the same organization (E8, E9, E11–E14, E16)
//   write:  X-Service-Sync-Code + X-Service-Api-Key + X-Service-Api-Secret, or
//           Authorization: Bearer <API token>    (E1–E5, every other write, and viewer data: E10)
// An API token is accepted by the read and report classes too (in place of the sync code).
// An organization_key given to any class must name the authenticated organization.
// X-Service-MMI-Key narrows any of them to a sub-organization. Failed attempts are throttled per
// client IP (./auth-failures.ts); the plan's rate limit is its own middleware (./rate-limit.ts).
//
// Then, for every credential but the public sync code, who is behind it (a member's session or
// token, the API key and secret: a Principal) must hold the capability the route declares
// (./route-access.ts, the matrix in domain/members/access.ts), else 403 naming what is missing.
// The write is then recorded in the audit log by the next middleware (./audit.ts, in
// ./credentials.ts's chain; the operator API's in routes/admin).
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { getCookie } from "hono/cookie";
import {
  isOperatorToken,
  type OrganizationWithNetwork,
  organizationByKey,
  organizationByKeyAndSecret,
  organizationBySyncCode,
  organizationByToken,
  subOrganizationOf,
} from "../domain/authentication";
import { csrfTokenMatches, sessionIdentity } from "../domain/console/sessions";
import {
  CAPABILITIES,
  type Capability,
  rolesAllowing,
  scopesAllowing,
} from "../domain/members/access";
import { keyPrincipal, type Principal } from "../domain/members/principal";
import { tokenCredential, tokenPrincipal } from "../domain/tokens/tokens";
import type { AppEnv, AuthClass } from "../http/context";
import { credentialDeps } from "../http/deps";
import { ApiError, errorResponse, unauthorized } from "../http/errors";
import { constantTimeEqual } from "../shared/crypto";
import { credentialVersions } from "../shared/versions";
import { authenticationFailed } from "./auth-failures";
import { handlerRouteKey, ROUTE_ACCESS } from "./route-access";

const bearerToken = (c: Context) => c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];

interface Proven {
  org: OrganizationWithNetwork;
  principal?: Principal;
}

/** An API token: its organization and what it may do (its member's role, narrowed by its scope). */
async function authenticateToken(c: Context<AppEnv>, bearer: string): Promise<Proven> {
  const deps = credentialDeps(c);
  const syncCode = c.req.header("X-Service-Sync-Code");
  const [org, token] = await Promise.all([
    organizationByToken(deps, bearer),
    tokenCredential(deps, bearer),
  ]);
  if (!org || !token || (syncCode !== undefined && syncCode !== org.syncCode)) throw unauthorized();
  const judged = tokenPrincipal(token, deps.nowMs);
  if ("refused" in judged) throw unauthorized(judged.refused);
  return { org, principal: judged.principal };
}

async function authenticateWrite(c: Context<AppEnv>): Promise<Proven> {
  const deps = credentialDeps(c);
  const syncCode = c.req.header("X-Service-Sync-Code");
  const bearer = bearerToken(c);
  if (bearer) return authenticateToken(c, bearer);
  const apiKey = c.req.header("X-Service-Api-Key");
  const apiSecret = c.req.header("X-Service-Api-Secret");
  if (!syncCode || !apiKey || !apiSecret) {
    throw unauthorized(
      "authentication failed: send X-Service-Sync-Code, X-Service-Api-Key and X-Service-Api-Secret, or Authorization: Bearer <API token>",
    );
  }
  const org = await organizationByKeyAndSecret(deps, syncCode, apiKey, apiSecret);
  if (!org) throw unauthorized();
  return { org, principal: keyPrincipal(org.apiKey) };
}

async function authenticateRead(c: Context<AppEnv>): Promise<Proven> {
  const bearer = bearerToken(c);
  if (bearer) return authenticateToken(c, bearer);
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (!syncCode)
    throw unauthorized("authentication failed: X-Service-Sync-Code header is required");
  const org = await organizationBySyncCode(credentialDeps(c), syncCode);
  if (!org) throw unauthorized("authentication failed: unknown sync code");
  return { org };
}

async function authenticateReport(c: Context<AppEnv>): Promise<Proven> {
  const bearer = bearerToken(c);
  if (bearer) return authenticateToken(c, bearer);
  const organizationKey = c.req.query("organization_key");
  if (!organizationKey) throw unauthorized("authentication failed: organization_key is required");
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (!syncCode)
    throw unauthorized("authentication failed: X-Service-Sync-Code header is required");
  const org = await organizationByKey(credentialDeps(c), organizationKey);
  if (!org || !constantTimeEqual(syncCode, org.syncCode)) {
    throw unauthorized(
      "authentication failed: organization_key and X-Service-Sync-Code do not name one organization",
    );
  }
  return { org };
}

/** The console's session cookie (docs/console.md): HttpOnly, SameSite=Strict, Secure over https. */
export const SESSION_COOKIE = "evc_session";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The request's Origin is this service's own (a write a browser sends from another site is not). */
export function fromOwnOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("Origin");
  return (
    origin !== undefined &&
    (origin === new URL(c.req.url).origin || origin === c.get("origins").baseUrl)
  );
}

/** True when the request offers write credentials of its own (headers), which take precedence over a session. */
const hasWriteHeaders = (c: Context<AppEnv>) =>
  bearerToken(c) !== undefined ||
  c.req.header("X-Service-Api-Key") !== undefined ||
  c.req.header("X-Service-Api-Secret") !== undefined;

/**
 * True when the request carries write credentials (headers or the console's session), checked or
 * not: a read route authenticates with the sync code alone, but its caller is a writer, who must
 * read its own writes (the edge cache never answers it stale).
 */
export const offersWriteCredentials = (c: Context<AppEnv>) =>
  hasWriteHeaders(c) || getCookie(c, SESSION_COOKIE) !== undefined;

/**
 * Write credentials from the console's session cookie. Every request it authenticates carries
 * the session's X-CSRF-Token (a page of another site cannot read it), and writes also an Origin
 * of this service: two independent checks beside SameSite=Strict.
 */
async function authenticateSession(c: Context<AppEnv>, token: string) {
  const identity = await sessionIdentity({ db: c.get("db"), now: new Date() }, token);
  if (!identity)
    throw unauthorized("authentication failed: the console session has ended; sign in again");
  const csrf = c.req.header("X-CSRF-Token");
  if (!csrf || !(await csrfTokenMatches(token, csrf)))
    throw new ApiError(403, "CSRF check failed: send the session's X-CSRF-Token header");
  if (!SAFE_METHODS.has(c.req.method) && !fromOwnOrigin(c)) {
    throw new ApiError(
      403,
      "CSRF check failed: a write with the session cookie must come from this service's own origin",
    );
  }
  return identity;
}

const authenticators = {
  read: authenticateRead,
  report: authenticateReport,
  write: authenticateWrite,
};

/** Every credential, the session's too: an organization_key given must name the organization it authenticated. */
function checkOrganizationKey(c: Context<AppEnv>, org: OrganizationWithNetwork): void {
  const organizationKey = c.req.query("organization_key");
  if (organizationKey !== undefined && organizationKey !== org.organizationKey) {
    throw unauthorized(
      "authentication failed: organization_key does not belong to these credentials",
    );
  }
}

async function identify(c: Context<AppEnv>, kind: AuthClass) {
  const sessionToken =
    kind === "write" && !hasWriteHeaders(c) ? getCookie(c, SESSION_COOKIE) : undefined;
  if (sessionToken) {
    const session = await authenticateSession(c, sessionToken);
    checkOrganizationKey(c, session.org);
    const mmiKey = c.req.header("X-Service-MMI-Key");
    // A session opened for a sub-organization stays in it; one of the organization may narrow.
    const signedIn = {
      org: session.org,
      sessionTokenHash: session.tokenHash,
      principal: session.principal,
    };
    if (session.subOrg || mmiKey === undefined) return { ...signedIn, subOrg: session.subOrg };
    const subOrg = await subOrganizationOf(credentialDeps(c), session.org, mmiKey);
    if (!subOrg)
      throw unauthorized("authentication failed: unknown X-Service-MMI-Key for this organization");
    return { ...signedIn, subOrg };
  }
  const { org, principal } = await authenticators[kind](c);
  checkOrganizationKey(c, org);
  const mmiKey = c.req.header("X-Service-MMI-Key");
  if (mmiKey === undefined) return { org, subOrg: null, principal };
  const subOrg = await subOrganizationOf(credentialDeps(c), org, mmiKey);
  if (!subOrg)
    throw unauthorized("authentication failed: unknown X-Service-MMI-Key for this organization");
  return { org, subOrg, principal };
}

/** The refusal of a principal without the route's capability: what is missing and who has it. */
function refusal(principal: Principal, capability: Capability): ApiError {
  const what = `${capability} (${CAPABILITIES[capability]})`;
  if (principal.scope !== null && !principal.capabilities.has(capability)) {
    const roleAllows =
      principal.role === null || rolesAllowing(capability).includes(principal.role);
    if (roleAllows)
      return new ApiError(
        403,
        `forbidden: this API token's scope "${principal.scope}" does not allow ${what}; scopes that do: ${scopesAllowing(capability).join(", ")}`,
      );
  }
  return new ApiError(
    403,
    `forbidden: the role ${principal.role ?? "owner"} does not allow ${what}; roles that do: ${rolesAllowing(capability).join(", ")}`,
  );
}

/** The route's capability, held by the request's principal (the public sync code has none to check). */
function checkCapability(c: Context<AppEnv>, principal: Principal | undefined): void {
  if (!principal) return;
  const key = handlerRouteKey(c);
  const access = ROUTE_ACCESS[key];
  // A route nobody declared is refused (test/route-access.test.ts keeps this from happening).
  if (access === undefined || access === "public" || access === "operator")
    throw new ApiError(403, `forbidden: ${key} declares no capability for these credentials`);
  if (!principal.capabilities.has(access)) throw refusal(principal, access);
}

export function authenticate(kind: AuthClass): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let who;
    try {
      who = await identify(c, kind);
    } catch (err) {
      throw err instanceof ApiError && err.status === 401 ? authenticationFailed(c, err) : err;
    }
    checkCapability(c, who.principal);
    c.set("auth", { ...who, via: kind, versions: credentialVersions(who) });
    await next();
  };
}

/** The operator API: Authorization: Bearer <ADMIN_TOKEN> (hono/bearer-auth, constant-time). */
const refuseOperator = (c: Context<AppEnv>) => {
  const refusal = authenticationFailed(
    c,
    unauthorized("authentication failed: operator token required"),
  );
  return errorResponse(c, refusal.status, refusal.message, refusal.headers);
};
export const requireAdmin: MiddlewareHandler<AppEnv> = bearerAuth({
  verifyToken: async (token, c: Context<AppEnv>) => {
    const expected = c.get("config").adminToken;
    if (!expected) throw new ApiError(503, "operator API disabled: ADMIN_TOKEN is not configured");
    return isOperatorToken(token, expected);
  },
  noAuthenticationHeader: { message: refuseOperator },
  invalidAuthenticationHeader: { message: refuseOperator },
  invalidToken: { message: refuseOperator },
});
