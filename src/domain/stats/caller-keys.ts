// Statistics rows carry content keys, not sub-organizations: a caller narrowed to a
// sub-organization (X-Service-MMI-Key) reads the rows of its content keys only. One rule for
// every statistics answer (reports, the organization's totals).
import type { Db } from "../../db/client";
import { keysInScopeAmong } from "../../db/stats/catalog-keys";
import type { StatsDb } from "../../db/stats/client";
import { contentKeysWithTotals, type Totals, type TotalsScope } from "../../db/stats/totals";
import type { Caller } from "../catalog/caller";

/**
 * The sub-organization's content keys among those with statistics in `scope` (one query per
 * database: the keys with totals, then the catalog keeps its own); undefined for a caller of the
 * whole organization.
 */
export async function callerContentKeys(
  db: Db,
  stats: StatsDb,
  caller: Caller,
  scope: TotalsScope,
  totals: Totals,
): Promise<string[] | undefined> {
  const sub = caller.subOrg;
  if (!sub) return undefined;
  const withStatistics = await contentKeysWithTotals(stats, totals, scope);
  const ofSub = await keysInScopeAmong(
    db,
    { organizationId: scope.organizationId, subOrganizationId: sub.id },
    withStatistics,
  );
  return withStatistics.filter((k) => ofSub.has(k));
}
