// POST /v2/events: player statistics (public by sync code, not rate limited, CORS open).
import { createRoute } from "@hono/zod-openapi";
import { jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { eventBatchResult, eventsQuery, EVENTS_BODY_MAX_BYTES, EVENTS_MAX } from "../../schemas/events";

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
    "Events count on the UTC day of their timestamp. Viewer rows (ip, fingerprint, tput hash) only for consent: true and the viewer_analytics entitlement.",
  ].join(" "),
  security: SECURITY.player,
  request: {
    query: eventsQuery,
    body: { required: true, content: { "application/json": { schema: batchSchema }, "text/plain": { schema: batchSchema } } },
  },
  responses: { 200: jsonContent(eventBatchResult, "Accepted and rejected events"), ...koErrors(400, 401, 413) },
});
