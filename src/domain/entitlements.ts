// Entitlements gate parameters and reports (spec 4.2, 4.3, 5): without one, 403.
import type { Entitlement } from "../db/schema";
import { forbidden } from "../shared/errors";

export function requireEntitlement(
  org: { entitlements: readonly Entitlement[] },
  entitlement: Entitlement,
  what: string,
): void {
  if (!org.entitlements.includes(entitlement))
    throw forbidden(`${what} requires the ${entitlement} entitlement`);
}
