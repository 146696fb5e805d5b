// Authentication per DESIGN.md, then the per-organization rate limit.
//   read:   X-Service-Sync-Code                                   (E6, E7)
//   report: ?organization_key (and X-Service-Sync-Code must match when sent)   (E8–E14, E16)
//   write:  X-Service-Sync-Code + X-Service-Api-Key + X-Service-Api-Secret, or
//           Authorization: Bearer <API token>                     (E1–E5 and every other write)
// X-Service-MMI-Key narrows any of them to a sub-organization.
import type { MiddlewareHandler } from "hono";
import { constantTimeEqual, sha256Hex } from "../domain/credentials";
import { PLAN_LIMITS, RateLimiter, rateLimitHeaders } from "../domain/rate-limit";
import {
  findOrganizationByApiKey,
  findOrganizationByKey,
  findOrganizationBySyncCode,
  findOrganizationByTokenHash,
  findSubOrganization,
  type OrganizationWithNetwork,
} from "../db/organizations";
import type { Entitlement } from "../db/schema";
import { ApiError, forbidden, unauthorized } from "../http/errors";
import type { AppEnv, AuthContext } from "../http/context";

export type AuthClass = "read" | "report" | "write";

const rateLimiter = new RateLimiter();

async function authenticateWrite(c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
  const db = c.get("db");
  const syncCode = c.req.header("X-Service-Sync-Code");
  const authorization = c.req.header("Authorization");
  let org: OrganizationWithNetwork | null = null;
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer) {
    org = await findOrganizationByTokenHash(db, await sha256Hex(bearer));
    if (org && syncCode !== undefined && syncCode !== org.syncCode) org = null;
  } else {
    const apiKey = c.req.header("X-Service-Api-Key");
    const apiSecret = c.req.header("X-Service-Api-Secret");
    if (!syncCode || !apiKey || !apiSecret) {
      throw unauthorized(
        "authentication failed: send X-Service-Sync-Code, X-Service-Api-Key and X-Service-Api-Secret, or Authorization: Bearer <API token>",
      );
    }
    const candidate = await findOrganizationByApiKey(db, apiKey);
    const secretHash = await sha256Hex(apiSecret);
    // Hash and compare even when the key is unknown, so timing does not reveal which part was wrong.
    const secretOk = constantTimeEqual(secretHash, candidate?.apiSecretHash ?? "0".repeat(64));
    if (candidate && secretOk && candidate.syncCode === syncCode) org = candidate;
  }
  if (!org) throw unauthorized();
  return org;
}

async function authenticateRead(c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (!syncCode) throw unauthorized("authentication failed: X-Service-Sync-Code header is required");
  const org = await findOrganizationBySyncCode(c.get("db"), syncCode);
  if (!org) throw unauthorized("authentication failed: unknown sync code");
  return org;
}

async function authenticateReport(c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
  const organizationKey = c.req.query("organization_key");
  if (!organizationKey) throw unauthorized("authentication failed: organization_key is required");
  const org = await findOrganizationByKey(c.get("db"), organizationKey);
  if (!org) throw unauthorized("authentication failed: unknown organization_key");
  const syncCode = c.req.header("X-Service-Sync-Code");
  if (syncCode !== undefined && syncCode !== org.syncCode) {
    throw unauthorized("authentication failed: X-Service-Sync-Code does not belong to organization_key");
  }
  return org;
}

const authenticators = { read: authenticateRead, report: authenticateReport, write: authenticateWrite };

export function authenticate(kind: AuthClass): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const org = await authenticators[kind](c);
    let subOrg: AuthContext["subOrg"] = null;
    const mmiKey = c.req.header("X-Service-MMI-Key");
    if (mmiKey !== undefined) {
      subOrg = await findSubOrganization(c.get("db"), org.id, mmiKey);
      if (!subOrg) throw unauthorized("authentication failed: unknown X-Service-MMI-Key for this organization");
      requireEntitlement({ org, subOrg }, "mmi", "X-Service-MMI-Key");
    }
    c.set("auth", { org, subOrg });

    const decision = rateLimiter.hit(c.env.RATE_LIMITS, org.syncCode, PLAN_LIMITS[org.plan], Date.now(), (p) =>
      c.executionCtx.waitUntil(p),
    );
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new ApiError(429, `rate limit exceeded: ${decision.limit} requests per minute for this organization`, headers);
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

export function requireEntitlement(auth: AuthContext, entitlement: Entitlement, what: string): void {
  if (!auth.org.entitlements.includes(entitlement)) {
    throw forbidden(`${what} requires the ${entitlement} entitlement`);
  }
}

/** Operator API: Authorization: Bearer <ADMIN_TOKEN>. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.get("config").adminToken;
  const given = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!expected) throw new ApiError(503, "operator API disabled: ADMIN_TOKEN is not configured");
  if (!given || !constantTimeEqual(await sha256Hex(given), await sha256Hex(expected))) {
    throw unauthorized("authentication failed: operator token required");
  }
  await next();
};
