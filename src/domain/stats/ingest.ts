// Event ingestion (POST /v2/events), the request's part: a batch is normalized (events.ts:
// shape, time window, player token scope) and its accepted events are put on the event queue;
// the queue consumer (consume.ts, tally.ts) checks content keys and the cardinality caps and
// counts them. No database write happens in the request. The answer counts the events queued
// and lists every refused one with why.
import type { OrganizationWithNetwork } from "../../db/organizations";
import { sha256Hex } from "../../shared/crypto";
import { type EventSource, normalizeEvents, type Rejection } from "./events";
import { encodeEventMessages, sendBatches } from "./queued-events";

export interface IngestResult {
  /** Events queued for counting. */
  accepted: number;
  rejected: Rejection[];
}

/** Not one event could be queued (the queue refused or failed): the batch may be sent again. */
export class EventsNotQueued extends Error {}

export const NOT_QUEUED_REASON = "not queued: the event queue is unavailable; send it again later";

export async function queueEvents(
  queue: Queue<unknown>,
  org: OrganizationWithNetwork,
  source: EventSource,
  raw: readonly unknown[],
  /** The player's id of the batch (a batch sent again keeps it): the messages' ids derive from it. */
  batch?: string,
): Promise<IngestResult> {
  const normalized = await normalizeEvents(org, source, raw);
  const rejected = [...normalized.rejected];
  let accepted = 0;
  let failure: unknown = null;
  // The events as sent name the batch's messages with its id: another set sent under the
  // same id is other messages, counted, not a repeat dropped.
  const sent = batch === undefined ? undefined : await sha256Hex(JSON.stringify(raw));
  const messages = await encodeEventMessages(org.id, normalized.events, source.now, batch, sent);
  for (const group of sendBatches(messages)) {
    const events = group.reduce((n, m) => n + m.indices.length, 0);
    if (failure === null) {
      try {
        await queue.sendBatch(group.map((m) => ({ body: m.body, contentType: "json" as const })));
        accepted += events;
        continue;
      } catch (err) {
        failure = err;
      }
    }
    // Once a send failed the rest is not tried: the events that did not go are named one by one.
    for (const m of group)
      for (const index of m.indices) rejected.push({ index, reason: NOT_QUEUED_REASON });
  }
  if (failure !== null) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "events not queued",
        organization: org.organizationKey,
        error: String(failure).slice(0, 200),
      }),
    );
    if (accepted === 0 && normalized.events.length > 0)
      throw new EventsNotQueued("the event queue is unavailable", { cause: failure });
  }
  return { accepted, rejected: rejected.sort((a, b) => a.index - b.index) };
}
