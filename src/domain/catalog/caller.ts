// Who asks: the organization a request authenticated as, and the sub-organization it is
// narrowed to (X-Service-MMI-Key).

import type { ContentScope } from "../../db/catalog";
import type { OrganizationWithNetwork } from "../../db/organizations";
import type { SubOrganization } from "../../db/schema";
import type { Versions } from "../../shared/versions";

export interface Caller {
  org: OrganizationWithNetwork;
  subOrg: SubOrganization | null;
  /** Its versions, as its authentication built them (shared/versions.ts versionsOf). */
  versions?: Versions;
}

export const scopeOf = (caller: Caller): ContentScope => ({
  organizationId: caller.org.id,
  subOrganizationId: caller.subOrg?.id ?? null,
});
