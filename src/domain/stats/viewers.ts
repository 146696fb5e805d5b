// Viewer-level statistics: who may have them, and how the third party user token is kept.
//
// tput is never stored. The viewer rows keep hashTput(organization id, tput): the lowercase hex
// SHA-256 of the UTF-8 string "tput:v1:<organization id>:<tput>". Salting with the
// organization id keeps one viewer's rows of two organizations from being joined; the "v1"
// names the scheme so it can change with a migration. It is pseudonymization, not
// anonymization: whoever knows a token can find its rows (that is how E10 `tput=` and E6
// `watchedByTput` work), so the rows remain personal data, stored only with consent and
// removed by DELETE /v2/viewers.
import type { Db } from "../../db/client";
import type { OrganizationWithNetwork } from "../../db/organizations";
import type { ShardedOrganization } from "../../db/stats/shards";
import { deleteViewerRows } from "../../db/stats/viewers";
import { sha256Hex } from "../../shared/crypto";
import { invalid } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";
import { statsForChange } from "./shard-moves";

export function hashTput(organizationId: number, tput: string): Promise<string> {
  return sha256Hex(`tput:v1:${organizationId}:${tput}`);
}

/** Viewer rows are written only for events with consent: true from organizations with viewer analytics. */
export function keepsViewerRows(
  org: Pick<OrganizationWithNetwork, "entitlements">,
  consent: boolean | undefined,
): boolean {
  return consent === true && org.entitlements.includes("viewer_analytics");
}

/** Erasure (DELETE /v2/viewers): every viewer row of a fingerprint or of a tput, all days. */
export async function eraseViewer(
  db: Db,
  org: ShardedOrganization,
  who: { fingerprint?: string; tput?: string },
): Promise<{ deleted: number }> {
  const organizationId = org.id;
  if ((who.fingerprint === undefined) === (who.tput === undefined)) {
    throw invalid("fingerprint, tput: give exactly one of them");
  }
  const stats = await statsForChange(db, org);
  const deleted =
    who.fingerprint !== undefined
      ? await deleteViewerRows(stats, organizationId, { fingerprint: who.fingerprint })
      : await deleteViewerRows(stats, organizationId, {
          tputHash: await hashTput(organizationId, who.tput!),
        });
  if (deleted > 0) await statisticsChanged(db, organizationId);
  return { deleted };
}
