// GET /v2/analytics/video/totals: what the whole organization's videos did per day, country or
// device type (E7 and E8 answer per content key; a chart of the organization needs the sums).
import type { Db } from "../../db/client";
import type { OrganizationWithNetwork } from "../../db/organizations";
import { statsDbBeside } from "../../db/stats/client";
import { videoTotals, type TotalsGroup } from "../../db/stats/breakdowns";
import { dayRange } from "../../shared/dates";
import { requireEntitlement } from "../entitlements";

export async function organizationTotals(db: Db, org: OrganizationWithNetwork, q: { startDate: string; endDate: string; by: TotalsGroup }) {
  requireEntitlement(org, "enterprise_player", "video totals");
  const range = dayRange(q.startDate, q.endDate, { start: "startDate", end: "endDate" });
  const rows = await videoTotals(statsDbBeside(db), org.id, range.start, range.end, q.by);
  return { by: q.by, startDate: range.start, endDate: range.end, data: rows };
}
