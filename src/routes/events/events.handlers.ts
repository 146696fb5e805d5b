import type { Context } from "hono";
import { ingestionCeilings } from "../../domain/stats/ceilings";
import { deadLetterStatus, replayDeadLetters } from "../../domain/stats/consume";
import { EventsNotQueued, queueEvents } from "../../domain/stats/ingest";
import { ingestionStatus } from "../../domain/stats/ingestion-status";
import type { AppEnv } from "../../http/context";
import { ApiError } from "../../http/errors";
import { clientIp, requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { admitPlayerBatch, playerOrganization } from "../../middleware/player-ingestion";
import { eventBatchEnvelope } from "../../schemas/events";
import { invalid } from "../../shared/errors";
import { isolateNow } from "../../shared/isolate-memory";
import { describeZodError } from "../../shared/validation";
import type * as routes from "./events.routes";

async function readBatch(c: Context<AppEnv>) {
  let body: unknown;
  try {
    // Any Content-Type: sendBeacon sends text/plain, some players none.
    body = JSON.parse(await c.req.text());
  } catch {
    throw invalid("invalid JSON in the request body");
  }
  const envelope = eventBatchEnvelope.safeParse(body);
  if (!envelope.success) throw invalid(describeZodError(envelope.error));
  return envelope.data;
}

export const ingest: AppRouteHandler<typeof routes.ingest> = async (c) => {
  const org = await playerOrganization(c, c.req.valid("query").sync);
  const config = c.get("config");
  const batch = await readBatch(c);
  // The isolate's one clock (shared/isolate-memory.ts), as the middleware reads it.
  const nowMs = isolateNow();
  const { tokenContentKey } = await admitPlayerBatch(
    c,
    org,
    batch.events.length,
    batch.token ?? c.req.header("X-Service-Player-Token"),
    "token in the body or X-Service-Player-Token",
  );

  const source = {
    now: nowMs,
    maxAgeDays: config.eventsMaxAgeDays,
    country: requestCountry(c.req.raw),
    ip: clientIp(c.req.raw),
    userAgent: c.req.header("User-Agent") ?? null,
    tokenContentKey,
  };
  try {
    const result = await queueEvents(c.env.EVENTS_QUEUE, org, source, batch.events, batch.batch);
    return c.json({ status: "ok" as const, ...result }, 200);
  } catch (err) {
    if (err instanceof EventsNotQueued)
      throw new ApiError(
        503,
        "events not queued: the event queue is unavailable; send the batch again later",
        { "Retry-After": "10" },
      );
    throw err;
  }
};

export const ingestion: AppRouteHandler<typeof routes.ingestion> = async (c) => {
  const { org } = c.get("auth");
  const data = await ingestionStatus(
    c.get("db"),
    org,
    ingestionCeilings(org.plan, c.get("config")),
    c.req.valid("query").days,
    new Date(),
  );
  return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
};

export const deadLetters: AppRouteHandler<typeof routes.deadLetters> = async (c) =>
  c.json(await deadLetterStatus(c.get("db")), 200);

export const replay: AppRouteHandler<typeof routes.replayDeadLetters> = async (c) =>
  c.json(await replayDeadLetters(c.get("db"), c.env.EVENTS_QUEUE, c.req.valid("query").limit), 200);
