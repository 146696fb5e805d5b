// Events that POST /v2/events refused by its limits (per address, per organization) are
// counted for GET /v2/ingestion without a database write in the request: each isolate tallies
// them per organization and sends the tally to the event queue at most once per interval (a
// flood of refused beacons costs a queue message a second per isolate, not one per beacon).
// The consumer adds the tallies to the organization's day, exactly once like events.
import { type Refused, refusalMessageOf } from "./queued-events";

export const REFUSAL_FLUSH_MS = 1000;

interface Pending {
  refused: Refused;
  /** A flush is scheduled for the end of the interval. */
  scheduled: boolean;
  lastFlushMs: number;
}

export class RefusalTally {
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly intervalMs = REFUSAL_FLUSH_MS) {}

  /**
   * Adds refused events of an organization. The first refusal of an interval is sent at once;
   * the rest of the interval's are sent together at its end (`defer` keeps the isolate alive
   * for it: ctx.waitUntil), so every refusal is counted within about one interval.
   */
  add(
    queue: Queue<unknown>,
    organizationId: number,
    kind: keyof Refused,
    events: number,
    nowMs: number,
    defer: (p: Promise<unknown>) => void,
  ): void {
    let entry = this.pending.get(organizationId);
    if (!entry)
      this.pending.set(
        organizationId,
        (entry = { refused: { ceiling: 0, address: 0 }, scheduled: false, lastFlushMs: 0 }),
      );
    entry.refused[kind] += events;
    if (entry.scheduled) return;
    const wait = entry.lastFlushMs + this.intervalMs - nowMs;
    entry.scheduled = true;
    defer(
      (wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve()).then(
        () => this.flush(queue, organizationId),
      ),
    );
  }

  private async flush(queue: Queue<unknown>, organizationId: number): Promise<void> {
    const entry = this.pending.get(organizationId)!;
    const refused = entry.refused;
    const nowMs = Date.now();
    this.pending.set(organizationId, {
      refused: { ceiling: 0, address: 0 },
      scheduled: false,
      lastFlushMs: nowMs,
    });
    try {
      await queue.send(refusalMessageOf(organizationId, refused, nowMs), { contentType: "json" });
    } catch (err) {
      // A tally is bookkeeping: losing one must not fail anything (the refusals were answered).
      console.error(
        JSON.stringify({
          level: "warn",
          msg: "refused-events tally not queued",
          organization_id: organizationId,
          ...refused,
          error: String(err).slice(0, 200),
        }),
      );
    }
  }
}
