// What the queue consumer did for an organization (GET /v2/ingestion): per UTC day the messages
// and events it counted, the events its checks refused and the values it folded into `other`,
// and the organization's messages parked as dead letters.
import type { Db } from "../../db/client";
import { statsDbBeside } from "../../db/stats/client";
import { deadLetterCount, ingestionDaysOf } from "../../db/stats/ingestion";
import { utcDay } from "../../shared/dates";

export async function ingestionStatus(db: Db, organizationId: number, days: number, now: Date) {
  const stats = statsDbBeside(db);
  const from = utcDay(now.getTime() - (days - 1) * 86_400_000);
  const [rows, deadLetters] = await Promise.all([ingestionDaysOf(stats, organizationId, from), deadLetterCount(stats, organizationId)]);
  return {
    days: rows.map((r) => ({
      date: r.day,
      messages: r.messages,
      eventsCounted: r.eventsCounted,
      eventsRejected: r.eventsRejected,
      valuesFolded: r.valuesFolded,
      lastRejection: r.lastRejection,
      lastRejectionAt: r.lastRejectionAt,
    })),
    deadLetters,
  };
}
