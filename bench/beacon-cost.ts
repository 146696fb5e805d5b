// What a beacon (POST /v2/events) spends in the service's own code, step by step, timed in Node
// on the bench's own request bodies: the body's JSON.parse, the envelope, each event judged and
// normalized, the queue messages put together (their ids derived from the body's batch id, as the
// player SDK sends one), and the JSON the queue makes of them (contentType "json"). What a request spends besides (the runtime, the middleware, the queue's send) is what
// the route without D1 shows. Run by bench/stats.mjs (npm run bench:stats).
import { performance } from "node:perf_hooks";
import type { OrganizationWithNetwork } from "../src/db/organizations";
import { type EventSource, normalizeEvents } from "../src/domain/stats/events";
import { encodeEventMessages } from "../src/domain/stats/queued-events";
import { eventBatchEnvelope } from "../src/schemas/events";
import { median } from "./lib/stats.mjs";

export interface BeaconCostRow {
  events: number;
  step: string;
  msPerRequest: number;
  usPerEvent: number;
}

// An organization with viewer analytics: consenting events carry viewer values, as on bulk1.
const org = {
  id: 1,
  organizationKey: "bench",
  entitlements: ["viewer_analytics", "ecommerce", "enterprise_player"],
} as unknown as OrganizationWithNetwork;

/** Median time per request of each step over `requests` bodies of each size (after as many warm-ups). */
export async function measure(
  makeBody: (size: number, n: number) => string,
  sizes = [5, 500],
  requests = 200,
): Promise<BeaconCostRow[]> {
  const rows: BeaconCostRow[] = [];
  for (const size of sizes) {
    const bodies = Array.from({ length: requests }, (_, n) => makeBody(size, n));
    const times: Record<string, number[]> = {
      "JSON.parse of the body": [],
      envelope: [],
      "events judged and normalized": [],
      "queue messages put together": [],
      "the queue's JSON of them": [],
    };
    for (const warm of [true, false]) {
      for (const body of bodies) {
        const source: EventSource = {
          now: Date.now(),
          maxAgeDays: 7,
          country: "US",
          ip: "192.0.2.1",
          userAgent: "bench",
          tokenContentKey: null,
        };
        let t = performance.now();
        const step = (name: string) => {
          const now = performance.now();
          if (!warm) times[name]!.push(now - t);
          t = now;
        };
        const parsed: unknown = JSON.parse(body);
        step("JSON.parse of the body");
        const envelope = eventBatchEnvelope.parse(parsed);
        step("envelope");
        const normalized = await normalizeEvents(org, source, envelope.events);
        step("events judged and normalized");
        const messages = await encodeEventMessages(
          org.id,
          normalized.events,
          source.now,
          envelope.batch,
        );
        step("queue messages put together");
        for (const m of messages) JSON.stringify(m.body);
        step("the queue's JSON of them");
        if (normalized.rejected.length > 0)
          throw new Error(`the bench's events were refused: ${normalized.rejected[0]!.reason}`);
      }
    }
    for (const [name, list] of Object.entries(times)) {
      const ms = median(list) as number;
      rows.push({ events: size, step: name, msPerRequest: ms, usPerEvent: (ms * 1000) / size });
    }
  }
  return rows;
}
