// Authentication per DESIGN.md: which organization (and sub-organization) a request acts for.
//   read:   X-Service-Sync-Code                                             (E6, E7)
//   report: ?organization_key and X-Service-Sync-Code of the same organization (E8, E9, E11–E14, E16)
//   write:  X-Service-Sync-Code + X-Service-Api-Key + X-Service-Api-Secret, or
//           Authorization: Bearer <API token>    (E1–E5, every other write, and viewer data: E10)
// An organization_key given to any class must name the authenticated organization.
// X-Service-MMI-Key narrows any of them to a sub-organization. Failed attempts are throttled per
// client IP (./auth-failures.ts); the plan's rate limit is its own middleware (./rate-limit.ts).
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import {
  isOperatorToken,
  organizationByKey,
  organizationByKeyAndSecret,
  organizationBySyncCode,
  organizationByToken,
  subOrganizationOf,
  type OrganizationWithNetwork,
} from "../domain/authentication";
import type { AppEnv, AuthClass } from "../http/context";
import { credentialDeps } from "../http/deps";
import { ApiError, errorResponse, unauthorized } from "../http/errors";
import { constantTimeEqual } from "../shared/crypto";
import { authenticationFailed } from "./auth-failures";

const bearerToken = (c: Context) => c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];

async function authenticateWrite(c: Context<AppEnv>): Promise<OrganizationWithNetwork> {
  const deps = credentialDeps(c);
  const syncCode = c.req.header("X-Service-Sync-Code");
  const bearer = bearerToken(c);
  if (bearer) {
    const org = await organizationByToken(deps, bearer);
    if (org && (syncCode === undefined || syncCode === org.syncCode)) return org;
    throw unauthorized();
  }
  const apiKey = c.req.header("X-Service-Api-Key");
  const apiSecret = c.req.header("X-Service-Api-Secret");
  if (!syncCode || !apiKey || !apiSecret) {
    throw unauthorized(
      "authentication failed: send X-Service-Sync-Code, X-Service-Api-Key and X-Service-Api-Secret, or Authorization: Bearer <API token>",
    );
  }
  const org = await organizationByKeyAndSecret(deps, syncCode, apiKey, apiSecret);
  if (!org) throw unauthorized();
  return org;
}

async function authenticateRead(c: Context<AppEnv>): Promise<OrganizationWithNetwork> {
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (!syncCode) throw unauthorized("authentication failed: X-Service-Sync-Code header is required");
  const org = await organizationBySyncCode(credentialDeps(c), syncCode);
  if (!org) throw unauthorized("authentication failed: unknown sync code");
  return org;
}

async function authenticateReport(c: Context<AppEnv>): Promise<OrganizationWithNetwork> {
  const organizationKey = c.req.query("organization_key");
  if (!organizationKey) throw unauthorized("authentication failed: organization_key is required");
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (!syncCode) throw unauthorized("authentication failed: X-Service-Sync-Code header is required");
  const org = await organizationByKey(credentialDeps(c), organizationKey);
  if (!org || !constantTimeEqual(syncCode, org.syncCode)) {
    throw unauthorized("authentication failed: organization_key and X-Service-Sync-Code do not name one organization");
  }
  return org;
}

const authenticators = { read: authenticateRead, report: authenticateReport, write: authenticateWrite };

async function identify(c: Context<AppEnv>, kind: AuthClass) {
  const org = await authenticators[kind](c);
  const organizationKey = c.req.query("organization_key");
  if (organizationKey !== undefined && organizationKey !== org.organizationKey) {
    throw unauthorized("authentication failed: organization_key does not belong to these credentials");
  }
  const mmiKey = c.req.header("X-Service-MMI-Key");
  if (mmiKey === undefined) return { org, subOrg: null };
  const subOrg = await subOrganizationOf(credentialDeps(c), org, mmiKey);
  if (!subOrg) throw unauthorized("authentication failed: unknown X-Service-MMI-Key for this organization");
  return { org, subOrg };
}

export function authenticate(kind: AuthClass): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let who;
    try {
      who = await identify(c, kind);
    } catch (err) {
      throw err instanceof ApiError && err.status === 401 ? authenticationFailed(c, err) : err;
    }
    c.set("auth", { ...who, via: kind });
    await next();
  };
}

/** The operator API: Authorization: Bearer <ADMIN_TOKEN> (hono/bearer-auth, constant-time). */
const refuseOperator = (c: Context<AppEnv>) => {
  const refusal = authenticationFailed(c, unauthorized("authentication failed: operator token required"));
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
