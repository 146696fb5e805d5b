// The write side of the statistics: event ingestion from players (public, by sync code),
// viewer erasure and ecommerce items (write credentials). Errors answer {status: "KO", error}.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findOrganizationBySyncCode } from "../db/organizations";
import { requestCountry } from "../domain/geo";
import {
  createEcommerceItem,
  ecommerceItems,
  removeEcommerceItem,
  replaceEcommerceItem,
} from "../domain/stats/ecommerce";
import { eventsMaxAgeDays, ingestEvents } from "../domain/stats/ingest";
import { eraseViewer } from "../domain/stats/viewers";
import type { AppEnv } from "../http/context";
import { ApiError, badRequest, unauthorized } from "../http/errors";
import { describeZodError, validationHook } from "../http/validation";
import { authenticate, requireEntitlement } from "../middleware/auth";
import {
  ecommerceItem,
  ecommerceItemBody,
  ecommerceKeyQuery,
  eventBatch,
  eventBatchEnvelope,
  eventBatchResult,
  eventsQuery,
  EVENTS_BODY_MAX_BYTES,
  EVENTS_MAX,
  jsonContent,
  okEnvelope,
  statsErrors,
  viewerErasureQuery,
} from "../schemas/stats";

export const eventRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

eventRoutes.openAPIRegistry.registerComponent("securitySchemes", "syncCodeQuery", { type: "apiKey", in: "query", name: "sync" });
eventRoutes.openAPIRegistry.register("EventBatch", eventBatch);

const tooLarge = () => new ApiError(413, `the body is over ${EVENTS_BODY_MAX_BYTES} bytes`);

/** The body as text, refusing more than `max` bytes without buffering them. */
async function readBoundedText(request: Request, max: number): Promise<string> {
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Player traffic names its organization by sync code: the header, or ?sync= for sendBeacon. */
async function playerOrganization(c: Context<AppEnv>, fromQuery: string | undefined) {
  const fromHeader = c.req.header("X-Service-Sync-Code");
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw unauthorized("authentication failed: X-Service-Sync-Code and sync name different organizations");
  }
  const syncCode = fromHeader ?? fromQuery;
  if (!syncCode) throw unauthorized("authentication failed: send X-Service-Sync-Code or the sync query parameter");
  const org = await findOrganizationBySyncCode(c.get("db"), syncCode);
  if (!org) throw unauthorized("authentication failed: unknown sync code");
  return org;
}

const batchSchema = { $ref: "#/components/schemas/EventBatch" };

eventRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v2/events",
    tags: ["Statistics"],
    summary: "Ingest player events",
    description: [
      `A batch of at most ${EVENTS_MAX} events, as application/json or as text/plain carrying the same JSON (navigator.sendBeacon), at most 1 MB.`,
      "The organization is named by its sync code (X-Service-Sync-Code header or sync query parameter); not rate limited, CORS open.",
      "Each event is judged on its own: the response counts the accepted ones and lists each refused one with its index and reason.",
      "Events count on the UTC day of their timestamp. Viewer rows (ip, fingerprint, tput hash) only for consent: true and the viewer_analytics entitlement.",
    ].join(" "),
    security: [{ syncCodeAuth: [] }, { syncCodeQuery: [] }],
    request: {
      query: eventsQuery,
      body: { required: true, content: { "application/json": { schema: batchSchema }, "text/plain": { schema: batchSchema } } },
    },
    responses: {
      200: jsonContent(eventBatchResult, "Accepted and rejected events"),
      400: statsErrors[400],
      401: statsErrors[401],
      413: statsErrors[413],
    },
  }),
  async (c) => {
    // (The query was validated by eventsQuery; the body's $ref schema leaves valid() untyped.)
    const org = await playerOrganization(c, c.req.query("sync"));
    // For the request log; no rate limit (DESIGN.md: player traffic is bounded by size instead).
    c.set("auth", { org, subOrg: null });
    const text = await readBoundedText(c.req.raw, EVENTS_BODY_MAX_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest("invalid JSON in the request body");
    }
    const envelope = eventBatchEnvelope.safeParse(body);
    if (!envelope.success) throw badRequest(describeZodError(envelope.error));
    const result = await ingestEvents(
      {
        db: c.get("db"),
        org,
        now: Date.now(),
        maxAgeDays: eventsMaxAgeDays(c.env),
        country: requestCountry(c.req.raw),
        ip: c.req.header("CF-Connecting-IP") ?? null,
        userAgent: c.req.header("User-Agent") ?? null,
      },
      envelope.data.events,
    );
    return c.json({ status: "ok" as const, ...result }, 200);
  },
);

const writeSecurity: Record<string, string[]>[] = [{ syncCodeAuth: [], apiKeyAuth: [], apiSecretAuth: [] }, { bearerAuth: [] }];
const jsonBody = <T>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

eventRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v2/viewers",
    tags: ["Statistics"],
    summary: "Erase a viewer's statistics",
    description: "Deletes every viewer row (all days, all content) of a device fingerprint or of a third party user token. Give exactly one.",
    security: writeSecurity,
    middleware: [authenticate("write")] as const,
    request: { query: viewerErasureQuery },
    responses: {
      200: jsonContent(okEnvelope(z.object({ deleted: z.number() }), "ViewerErasure"), "How many viewer rows were deleted"),
      400: statsErrors[400],
      401: statsErrors[401],
      429: statsErrors[429],
    },
  }),
  async (c) => {
    const data = await eraseViewer(c.get("db"), c.get("auth").org.id, c.req.valid("query"));
    return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
  },
);

const ecommerceGate = (c: Context<AppEnv>) => requireEntitlement(c.get("auth"), "ecommerce", "ecommerce items");
const itemResponse = jsonContent(okEnvelope(ecommerceItem, "EcommerceItemResponse"), "The item");
const ecommerceErrors = { 400: statsErrors[400], 401: statsErrors[401], 403: statsErrors[403], 429: statsErrors[429] };

eventRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/ecommerce",
    tags: ["Statistics"],
    summary: "List ecommerce items",
    security: writeSecurity,
    middleware: [authenticate("write")] as const,
    responses: {
      200: jsonContent(okEnvelope(z.array(ecommerceItem), "EcommerceItemList"), "Every item, by key"),
      ...ecommerceErrors,
    },
  }),
  async (c) => {
    ecommerceGate(c);
    const data = await ecommerceItems(c.get("db"), c.get("auth").org.id);
    return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
  },
);

eventRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v2/ecommerce",
    tags: ["Statistics"],
    summary: "Create an ecommerce item",
    description: "ecommerceKey is what players send as ecommerceKey in events; E12 ecommerce_info shows link and name.",
    security: writeSecurity,
    middleware: [authenticate("write")] as const,
    request: { body: jsonBody(ecommerceItemBody) },
    responses: { 200: itemResponse, ...ecommerceErrors },
  }),
  async (c) => {
    ecommerceGate(c);
    const data = await createEcommerceItem(c.get("db"), c.get("auth").org.id, c.req.valid("json"), new Date().toISOString());
    return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
  },
);

eventRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v2/ecommerce",
    tags: ["Statistics"],
    summary: "Replace an ecommerce item's link and name",
    security: writeSecurity,
    middleware: [authenticate("write")] as const,
    request: { body: jsonBody(ecommerceItemBody) },
    responses: { 200: itemResponse, ...ecommerceErrors, 404: statsErrors[404] },
  }),
  async (c) => {
    ecommerceGate(c);
    const data = await replaceEcommerceItem(c.get("db"), c.get("auth").org.id, c.req.valid("json"), new Date().toISOString());
    return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
  },
);

eventRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v2/ecommerce",
    tags: ["Statistics"],
    summary: "Delete an ecommerce item",
    description: "Its statistics stay (E12 then has no ecommerce_info for the key).",
    security: writeSecurity,
    middleware: [authenticate("write")] as const,
    request: { query: ecommerceKeyQuery },
    responses: { 200: itemResponse, ...ecommerceErrors, 404: statsErrors[404] },
  }),
  async (c) => {
    ecommerceGate(c);
    const data = await removeEcommerceItem(c.get("db"), c.get("auth").org.id, c.req.valid("query").ecommerceKey);
    return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
  },
);
