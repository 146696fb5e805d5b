// POST /v2/events: player statistics (public by sync code, not rate limited, CORS open), queued
// for the consumer; GET /v2/ingestion: what the consumer counted and refused (write
// credentials); the operator's view and replay of the event messages parked as dead letters.
import { createRoute } from "@hono/zod-openapi";
import { jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { requireAdmin } from "../../middleware/auth";
import { credentials } from "../../middleware/credentials";
import { okEnvelope } from "../../schemas/common";
import {
  deadLetterStatus,
  EVENTS_BODY_MAX_BYTES,
  EVENTS_MAX,
  eventBatchResult,
  eventsQuery,
  ingestionQuery,
  ingestionStatus,
  replayQuery,
  replayResult,
} from "../../schemas/events";

const batchSchema = { $ref: "#/components/schemas/EventBatch" };

export const ingest = createRoute({
  method: "post",
  path: "/v2/events",
  operationId: "postEvents",
  tags: ["Statistics"],
  summary: "Ingest player events",
  description: [
    `A batch of at most ${EVENTS_MAX} events, as application/json or as text/plain carrying the same JSON (navigator.sendBeacon), at most ${EVENTS_BODY_MAX_BYTES} bytes.`,
    "The organization is named by its sync code (X-Service-Sync-Code header or sync query parameter); not rate limited, CORS open.",
    "Each event is judged on its own: the response counts the accepted ones and lists each refused one with its index and reason.",
    "Accepted means queued: the request checks the sync code, the player token, each event's shape and time, and puts the events on a queue; nothing is written to the database in the request.",
    "The queue consumer counts them within a few seconds, after the checks that need the database: the content key must be a video of the organization or its network, and free-form values past their daily cap count as other.",
    "What the consumer refuses is counted per organization: GET /v2/ingestion.",
    "Events count on the UTC day of their timestamp. Viewer rows (ip, fingerprint, tput hash) only for consent: true and the viewer_analytics entitlement.",
    "503 with Retry-After when the queue cannot take the batch (nothing of it was queued).",
  ].join(" "),
  security: SECURITY.player,
  request: {
    query: eventsQuery,
    body: {
      required: true,
      content: {
        "application/json": { schema: batchSchema },
        "text/plain": { schema: batchSchema },
      },
    },
  },
  responses: {
    200: jsonContent(eventBatchResult, "Accepted (queued) and rejected events"),
    ...koErrors(400, 401, 413, 429, 503),
  },
});

export const ingestion = createRoute({
  method: "get",
  path: "/v2/ingestion",
  operationId: "getIngestionStatus",
  tags: ["Statistics"],
  summary: "What the event queue consumer counted and refused",
  description: [
    "POST /v2/events checks each event's shape, time and player token and queues the accepted ones; the queue consumer counts them (within a few seconds) after checking what needs the database:",
    "the content key must be a video of the organization or its network, and free-form dimension values past the daily cap count as other.",
    "Per UTC day of processing: messages, events counted, events refused (with the last reason) and values folded into other; and the organization's messages parked as dead letters.",
  ].join(" "),
  security: SECURITY.write,
  middleware: credentials("write"),
  request: { query: ingestionQuery },
  responses: {
    200: jsonContent(okEnvelope(ingestionStatus, "IngestionStatusAnswer"), "The ingestion status"),
    ...koErrors(400, 401, 429),
  },
});

const operator = { tags: ["Operator"], security: SECURITY.admin, middleware: requireAdmin };

export const deadLetters = createRoute({
  ...operator,
  method: "get",
  path: "/admin/events/dead-letters",
  operationId: "adminEventDeadLetters",
  summary: "Event messages parked after the queue gave up on them",
  description:
    "A batch the consumer failed max_retries times goes to the dead-letter queue, whose consumer parks its messages in the statistics database until replayed.",
  responses: {
    200: jsonContent(deadLetterStatus, "How many are parked, and the oldest"),
    ...koErrors(401, 503),
  },
});

export const replayDeadLetters = createRoute({
  ...operator,
  method: "post",
  path: "/admin/events/dead-letters/replay",
  operationId: "adminReplayEventDeadLetters",
  summary: "Put parked event messages back on the event queue",
  description:
    "The oldest parked messages (at most limit), unchanged: each keeps its id, so one that was counted after all is skipped by the consumer. Call again while remaining > 0 (npm run admin -- events replay-dlq does).",
  request: { query: replayQuery },
  responses: { 200: jsonContent(replayResult, "What was replayed"), ...koErrors(400, 401, 503) },
});
