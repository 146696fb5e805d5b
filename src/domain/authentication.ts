// Who a request's credentials name (DESIGN.md "Organizations and credentials"). Secrets and
// tokens are compared as SHA-256 hashes in constant time; the caller (the auth middleware)
// reads the headers and answers 401 when these return null.
import type { Db } from "../db/client";
import {
  findOrganizationByApiKey,
  findOrganizationByKey,
  findOrganizationBySyncCode,
  findOrganizationByTokenHash,
  findSubOrganization,
  type OrganizationWithNetwork,
} from "../db/organizations";
import type { SubOrganization } from "../db/schema";
import { constantTimeEqual, sha256Hex } from "../shared/crypto";
import { requireEntitlement } from "./entitlements";

export type { OrganizationWithNetwork };

/** Read credentials and player traffic: the sync code. */
export function organizationBySyncCode(db: Db, syncCode: string) {
  return findOrganizationBySyncCode(db, syncCode);
}

/** Report credentials: organization_key. */
export function organizationByKey(db: Db, organizationKey: string) {
  return findOrganizationByKey(db, organizationKey);
}

/** Write credentials: an API token (Authorization: Bearer). */
export async function organizationByToken(db: Db, token: string) {
  return findOrganizationByTokenHash(db, await sha256Hex(token));
}

/** Write credentials: sync code, API key and API secret, all three of one organization. */
export async function organizationByKeyAndSecret(db: Db, syncCode: string, apiKey: string, apiSecret: string) {
  const candidate = await findOrganizationByApiKey(db, apiKey);
  // Hash and compare even when the key is unknown, so timing does not reveal which part was wrong.
  const secretOk = constantTimeEqual(await sha256Hex(apiSecret), candidate?.apiSecretHash ?? "0".repeat(64));
  return candidate && secretOk && candidate.syncCode === syncCode ? candidate : null;
}

/** X-Service-MMI-Key: the organization's sub-organization (null: unknown), gated by the mmi entitlement. */
export async function subOrganizationOf(db: Db, org: OrganizationWithNetwork, mmiKey: string): Promise<SubOrganization | null> {
  const sub = await findSubOrganization(db, org.id, mmiKey);
  if (sub) requireEntitlement(org, "mmi", "X-Service-MMI-Key");
  return sub;
}

/** The operator token (ADMIN_TOKEN), compared in constant time. */
export async function isOperatorToken(given: string, expected: string): Promise<boolean> {
  return constantTimeEqual(await sha256Hex(given), await sha256Hex(expected));
}
