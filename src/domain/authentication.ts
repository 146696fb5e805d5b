// Who a request's credentials name (docs/design.md "Organizations and credentials"). Secrets and
// tokens are compared as SHA-256 hashes in constant time; the caller (the auth middleware)
// reads the headers and answers 401 when these return null.
//
// Hot reads check credentials on every request, so a successful lookup is kept in the isolate
// (./kept-lookups.ts): revoking or rotating a credential, or changing an organization's plan
// or entitlements, takes effect everywhere within CREDENTIAL_CACHE_SECONDS (default 30), and at
// once in the isolate that made the change.
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
import { keptLookup, type LookupDeps } from "./kept-lookups";

export type { OrganizationWithNetwork };

/** What the credential checks need: the database, the clock and the cache bound. */
export type CredentialDeps = LookupDeps;

/** Read credentials and player traffic: the sync code. */
export function organizationBySyncCode(deps: CredentialDeps, syncCode: string) {
  return keptLookup(
    deps,
    `sync\u0000${syncCode}`,
    () => findOrganizationBySyncCode(deps.db, syncCode),
    "organization",
  );
}

/** Report credentials: organization_key (with the sync code, checked by the caller). */
export function organizationByKey(deps: CredentialDeps, organizationKey: string) {
  return keptLookup(
    deps,
    `key\u0000${organizationKey}`,
    () => findOrganizationByKey(deps.db, organizationKey),
    "organization",
  );
}

/** Write credentials: an API token (Authorization: Bearer). */
export async function organizationByToken(deps: CredentialDeps, token: string) {
  const hash = await sha256Hex(token);
  return keptLookup(
    deps,
    `token\u0000${hash}`,
    () => findOrganizationByTokenHash(deps.db, hash),
    "organization",
  );
}

/** Write credentials: sync code, API key and API secret, all three of one organization. */
export async function organizationByKeyAndSecret(
  deps: CredentialDeps,
  syncCode: string,
  apiKey: string,
  apiSecret: string,
) {
  const candidate = await keptLookup(
    deps,
    `apikey\u0000${apiKey}`,
    () => findOrganizationByApiKey(deps.db, apiKey),
    "organization",
  );
  // Hash and compare even when the key is unknown, so timing does not reveal which part was wrong.
  const secretOk = constantTimeEqual(
    await sha256Hex(apiSecret),
    candidate?.apiSecretHash ?? "0".repeat(64),
  );
  return candidate && secretOk && candidate.syncCode === syncCode ? candidate : null;
}

/** X-Service-MMI-Key: the organization's sub-organization (null: unknown), gated by the mmi entitlement. */
export async function subOrganizationOf(
  deps: CredentialDeps,
  org: OrganizationWithNetwork,
  mmiKey: string,
): Promise<SubOrganization | null> {
  const sub = await keptLookup(deps, `mmi\u0000${org.id}\u0000${mmiKey}`, () =>
    findSubOrganization(deps.db, org.id, mmiKey),
  );
  if (sub) requireEntitlement(org, "mmi", "X-Service-MMI-Key");
  return sub;
}

/** The operator token (ADMIN_TOKEN), compared in constant time. */
export async function isOperatorToken(given: string, expected: string): Promise<boolean> {
  return constantTimeEqual(await sha256Hex(given), await sha256Hex(expected));
}
