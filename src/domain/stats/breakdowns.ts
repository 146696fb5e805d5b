// GET /v2/analytics/video/totals: what the whole organization's videos did per day, country or
// device type (E7 and E8 answer per content key; a chart of the organization needs the sums),
// narrowed like every statistics answer to a sub-organization's videos (X-Service-MMI-Key).
import type { Db } from "../../db/client";
import { type TotalsGroup, videoTotals } from "../../db/stats/breakdowns";
import { ROLLUPS } from "../../db/stats/rollups";
import { statsDbOf } from "../../db/stats/shards";
import { dayRange } from "../../shared/dates";
import type { Caller } from "../catalog/caller";
import { requireEntitlement } from "../entitlements";
import { callerContentKeys } from "./caller-keys";

/** The organization's totals; a caller narrowed to a sub-organization gets its videos' sums. */
export async function organizationTotals(
  db: Db,
  caller: Caller,
  q: { startDate: string; endDate: string; by: TotalsGroup },
) {
  requireEntitlement(caller.org, "enterprise_player", "video totals");
  const range = dayRange(q.startDate, q.endDate, { start: "startDate", end: "endDate" });
  const stats = statsDbOf(db, caller.org);
  const scope = { organizationId: caller.org.id, start: range.start, end: range.end };
  const keys = await callerContentKeys(db, stats, caller, scope, ROLLUPS.video.totals);
  const rows = await videoTotals(stats, { ...scope, keys }, q.by);
  return { by: q.by, startDate: range.start, endDate: range.end, data: rows };
}
