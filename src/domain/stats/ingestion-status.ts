// What ingestion did for an organization (GET /v2/ingestion): per UTC day the messages and
// events the queue consumer counted, the events its checks refused, the values and viewers it
// folded into `other`, the events the requests refused by the limits; the organization's
// ceilings with today's use; and its messages parked as dead letters.
import type { Db } from "../../db/client";
import { dimensionCount } from "../../db/stats/dimensions";
import { deadLetterCount, ingestionDaysOf } from "../../db/stats/ingestion";
import {
  DEFAULT_SHARD,
  type ShardedOrganization,
  statsDbOf,
  statsShard,
} from "../../db/stats/shards";
import { DAY_MS, utcDay } from "../../shared/dates";
import type { IngestionCeilings } from "./ceilings";
import { VIEWERS_DIMENSION } from "./tally";

export async function ingestionStatus(
  db: Db,
  org: ShardedOrganization,
  ceilings: IngestionCeilings,
  days: number,
  now: Date,
) {
  const organizationId = org.id;
  const stats = statsDbOf(db, org);
  const today = utcDay(now.getTime());
  const from = utcDay(now.getTime() - (days - 1) * DAY_MS);
  const [rows, deadLetters, viewersToday] = await Promise.all([
    ingestionDaysOf(stats, organizationId, from),
    // Dead letters of every shard are parked in shard 0.
    deadLetterCount(statsShard(db, DEFAULT_SHARD), organizationId),
    dimensionCount(stats, organizationId, today, VIEWERS_DIMENSION),
  ]);
  return {
    ceilings: { ...ceilings, newViewersToday: viewersToday },
    days: rows.map((r) => ({
      date: r.day,
      messages: r.messages,
      eventsCounted: r.eventsCounted,
      eventsRejected: r.eventsRejected,
      valuesFolded: r.valuesFolded,
      viewersFolded: r.viewersFolded,
      eventsRefused: r.eventsRefused,
      eventsRefusedPerAddress: r.eventsRefusedPerAddress,
      lastRejection: r.lastRejection,
      lastRejectionAt: r.lastRejectionAt,
      lastCountedAt: r.lastCountedAt,
      maxLagMs: r.maxLagMs,
    })),
    deadLetters,
  };
}
