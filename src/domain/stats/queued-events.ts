// The messages of the event queue (video-catalog-events): what POST /v2/events puts on it and
// what the consumer reads back. A request's accepted events are normalized already (events.ts),
// so a message carries exactly what the rollup rows need, plus an id of its own: the key of
// exactly-once counting (the consumer records it in the transaction that counts the message).
import { z } from "zod";
import { counterTarget, NONE } from "../../shared/counters";
import { base64url } from "../../shared/crypto";
import { utf8Length } from "../../shared/json-text";
import type { CountedEvent, NormalizedEvent } from "./events";
import { type QoeBatch, type QoeMessage, qoeMessage } from "./qoe/messages";

/** Queue limits (Cloudflare Queues): 128 KB per message, 100 messages or 256 KB per sendBatch. */
const MESSAGE_MAX_BYTES = 100_000;
const SEND_BATCH_MAX_MESSAGES = 100;
const SEND_BATCH_MAX_BYTES = 240_000;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const value = z.string().min(1).max(512);

const queuedEvent = z.strictObject({
  day,
  contentKey: value,
  /** The counter (its canonical name: counterTarget gives the rows it counts in). */
  event: z.string().refine((name) => counterTarget(name) !== null, "unknown counter"),
  device: value,
  playerId: value.optional(),
  adPosition: value.optional(),
  adCreative: value.optional(),
  adSystem: value.optional(),
  ecommerceKey: value.optional(),
  viewer: z.strictObject({ ip: value, fingerprint: value, tputHash: value }).optional(),
});

const eventsMessage = z.strictObject({
  v: z.literal(1),
  id: z.string().min(10).max(64),
  organizationId: z.number().int().positive(),
  country3: value,
  country2: value,
  events: z.array(queuedEvent).min(1),
});

/**
 * Events refused in the request by the ingestion limits (ceilings.ts), tallied per isolate and
 * organization and sent at most once a second (refusals.ts), so GET /v2/ingestion counts them
 * without a database write in the request. Counted exactly once like an events message.
 */
const refusalMessage = z.strictObject({
  v: z.literal(1),
  id: z.string().min(10).max(64),
  organizationId: z.number().int().positive(),
  refused: z.strictObject({
    /** Past the organization's events-per-minute ceiling. */
    ceiling: z.number().int().min(0),
    /** Past the per-address (IPv4 address, IPv6 /64) limit. */
    address: z.number().int().min(0),
  }),
});

export type EventsMessage = z.infer<typeof eventsMessage>;
export type RefusalMessage = z.infer<typeof refusalMessage>;
export type Refused = RefusalMessage["refused"];
type QueuedEvent = z.infer<typeof queuedEvent>;

/**
 * A message id, 22 characters: the time it was queued (base 36 milliseconds, fixed width, so ids
 * sort by time and the cron forgets old ones with one range delete), then 72 random bits.
 */
export function messageId(nowMs: number): string {
  return `${messageIdPrefix(nowMs)}-${base64url(crypto.getRandomValues(new Uint8Array(9)))}`;
}

/** How far a batch id's time may lie from now for its ids to be derived from it. */
const BATCH_ID_PAST_MS = 24 * 60 * 60 * 1000;
const BATCH_ID_FUTURE_MS = 5 * 60 * 1000;

/**
 * The ids of a batch's messages: derived from the player's batch id when its time lies within
 * [now - 24 h, now + 5 min] (a batch sent again then gets the same ids, which the consumer
 * counts once), random otherwise. Same 22-character format as messageId: the batch's time,
 * then 72 bits of SHA-256 of the organization, batch id, the batch's events (`events`: a digest
 * of them as sent) and message index: the same id sent again with other events names other
 * messages, counted too, never taken for the batch already counted.
 */
export async function batchMessageIds(
  organizationId: number,
  batch: string | undefined,
  count: number,
  nowMs: number,
  events = "",
): Promise<string[]> {
  const at = batch === undefined ? Number.NaN : queuedAtOf(batch);
  if (!(at >= nowMs - BATCH_ID_PAST_MS && at <= nowMs + BATCH_ID_FUTURE_MS))
    return Array.from({ length: count }, () => messageId(nowMs));
  const encoder = new TextEncoder();
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const hash = await crypto.subtle.digest(
        "SHA-256",
        encoder.encode(`${organizationId}:${batch}:${events}:${i}`),
      );
      return `${batch!.slice(0, 9)}-${base64url(new Uint8Array(hash)).slice(0, 12)}`;
    }),
  );
}

/** When a message was queued (ms), read from its id. */
export function queuedAtOf(id: string): number {
  return parseInt(id.slice(0, 9), 36);
}

/** The id prefix of an instant: every id queued before it sorts before it. */
export function messageIdPrefix(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(36).padStart(9, "0");
}

// A 500-event request would size every event if it had to split: counted, not encoded (encoding each cost ~1 ms).
const bytesOf = (v: unknown) => utf8Length(JSON.stringify(v));

const orNone = (v: string | undefined) => v ?? NONE;
const unlessNone = (v: string) => (v === NONE ? undefined : v);

function toQueued(e: CountedEvent): QueuedEvent {
  return {
    day: e.day,
    contentKey: e.contentKey,
    event: e.target.counter,
    device: e.device,
    playerId: unlessNone(e.playerId),
    adPosition: unlessNone(e.adPosition),
    adCreative: unlessNone(e.adCreative),
    adSystem: unlessNone(e.adSystem),
    ecommerceKey: unlessNone(e.ecommerceKey),
    viewer: e.viewer ?? undefined,
  };
}

/** A message to send, and the request indices of the events it carries (for the answer). */
export interface OutgoingMessage {
  body: EventsMessage;
  bytes: number;
  indices: number[];
}

/**
 * The accepted events of one request as messages of at most MESSAGE_MAX_BYTES each. A beacon's
 * events usually fit one message: that is measured once, as a whole (one JSON.stringify, where
 * sizing each of 500 events took twice as long); only a batch that does not fit is split by
 * the sizes of its events. The split depends on the events alone (the ids have a fixed width),
 * so the same events make the same messages: batchMessageIds names them by their index.
 */
export async function encodeEventMessages(
  organizationId: number,
  events: NormalizedEvent[],
  nowMs: number,
  batch?: string,
  /** A digest of the batch's events as the player sent them (batchMessageIds). */
  sent?: string,
): Promise<OutgoingMessage[]> {
  const messages = splitEventMessages(organizationId, events);
  const ids = await batchMessageIds(organizationId, batch, messages.length, nowMs, sent);
  for (const [i, m] of messages.entries()) m.body.id = ids[i]!;
  return messages;
}

/** The 22 characters of every message id (messageId, batchMessageIds), as a placeholder. */
const ID_PLACEHOLDER = "0".repeat(22);

function splitEventMessages(organizationId: number, events: NormalizedEvent[]): OutgoingMessage[] {
  if (events.length === 0) return [];
  const { country3, country2 } = events[0]!;
  const envelope = (queued: QueuedEvent[]): EventsMessage => ({
    v: 1,
    id: ID_PLACEHOLDER,
    organizationId,
    country3,
    country2,
    events: queued,
  });
  const all = events.map(toQueued);
  const whole = envelope(all);
  const wholeBytes = bytesOf(whole);
  if (wholeBytes <= MESSAGE_MAX_BYTES)
    return [{ body: whole, bytes: wholeBytes, indices: events.map((e) => e.index) }];

  const envelopeBytes = bytesOf(envelope([]));
  const out: OutgoingMessage[] = [];
  let queued: QueuedEvent[] = [];
  let indices: number[] = [];
  let bytes = envelopeBytes;
  const flush = () => {
    if (queued.length === 0) return;
    out.push({ body: envelope(queued), bytes, indices });
    queued = [];
    indices = [];
    bytes = envelopeBytes;
  };
  for (const [i, q] of all.entries()) {
    const size = bytesOf(q) + 1;
    if (bytes + size > MESSAGE_MAX_BYTES) flush();
    queued.push(q);
    indices.push(events[i]!.index);
    bytes += size;
  }
  flush();
  return out;
}

/** Groups messages into sendBatch calls within the queue's limits. */
export function sendBatches<M extends { bytes: number }>(messages: M[]): M[][] {
  const groups: M[][] = [];
  let group: M[] = [];
  let bytes = 0;
  for (const m of messages) {
    if (
      group.length === SEND_BATCH_MAX_MESSAGES ||
      (group.length > 0 && bytes + m.bytes > SEND_BATCH_MAX_BYTES)
    ) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(m);
    bytes += m.bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A refusal tally as a message of the event queue. */
export function refusalMessageOf(
  organizationId: number,
  refused: Refused,
  nowMs: number,
): RefusalMessage {
  return { v: 1, id: messageId(nowMs), organizationId, refused };
}

export type DecodedMessage = {
  message: EventsMessage | RefusalMessage | QoeMessage;
  events: CountedEvent[];
  refused: Refused | null;
  /** A CMCD collector's reports (qoe/messages.ts). */
  qoe: QoeBatch | null;
};

/** A message read back: its id, organization and events (or refusals); an error string when it cannot be read. */
export function decodeEventMessage(body: unknown): DecodedMessage | { error: string } {
  if (typeof body === "object" && body !== null && "refused" in body) {
    const refusal = refusalMessage.safeParse(body);
    if (!refusal.success) return { error: describeIssues(refusal.error) };
    return { message: refusal.data, events: [], refused: refusal.data.refused, qoe: null };
  }
  if (typeof body === "object" && body !== null && "qoe" in body) {
    const qoe = qoeMessage.safeParse(body);
    if (!qoe.success) return { error: describeIssues(qoe.error) };
    return { message: qoe.data, events: [], refused: null, qoe: qoe.data.qoe };
  }
  const parsed = eventsMessage.safeParse(body);
  if (!parsed.success) return { error: describeIssues(parsed.error) };
  const m = parsed.data;
  const events = m.events.map(
    (q): CountedEvent => ({
      day: q.day,
      contentKey: q.contentKey,
      target: counterTarget(q.event)!,
      country3: m.country3,
      country2: m.country2,
      device: q.device,
      playerId: orNone(q.playerId),
      adPosition: orNone(q.adPosition),
      adCreative: orNone(q.adCreative),
      adSystem: orNone(q.adSystem),
      ecommerceKey: orNone(q.ecommerceKey),
      viewer: q.viewer ?? null,
    }),
  );
  return { message: m, events, refused: null, qoe: null };
}

const describeIssues = (error: z.ZodError) =>
  error.issues
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ")
    .slice(0, 300);
