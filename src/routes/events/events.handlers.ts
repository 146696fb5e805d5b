import type { Context } from "hono";
import { organizationBySyncCode } from "../../domain/authentication";
import { RateLimiter, type RateLimitDecision } from "../../domain/rate-limit";
import { ingestionCeilings } from "../../domain/stats/ceilings";
import { RefusalTally } from "../../domain/stats/refusals";
import { deadLetterStatus, replayDeadLetters } from "../../domain/stats/consume";
import { EventsNotQueued, queueEvents } from "../../domain/stats/ingest";
import { ingestionStatus } from "../../domain/stats/ingestion-status";
import { verifyPlayerToken } from "../../domain/stats/player-tokens";
import type { AppEnv } from "../../http/context";
import { credentialDeps } from "../../http/deps";
import { ApiError, unauthorized } from "../../http/errors";
import { clientIp, requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { authenticationFailed } from "../../middleware/auth-failures";
import { eventBatchEnvelope } from "../../schemas/events";
import { addressBucket } from "../../shared/client-address";
import { invalid } from "../../shared/errors";
import { isolateNow } from "../../shared/isolate-memory";
import { describeZodError } from "../../shared/validation";
import type * as routes from "./events.routes";
import { credentialVersions } from "../../shared/versions";

/** Events per client (IPv4 address, IPv6 /64) per minute (EVENTS_PER_IP_PER_MINUTE), counted like the plan limits. */
const perAddress = new RateLimiter();
/** Events per organization per minute: the ceiling no pool of addresses passes (domain/stats/ceilings.ts). */
const perOrganization = new RateLimiter();
/** What the two refused, for GET /v2/ingestion. */
const refusals = new RefusalTally();

/** Player traffic names its organization by sync code: the header, or ?sync= for sendBeacon. */
async function playerOrganization(c: Context<AppEnv>, fromQuery: string | undefined) {
  const fromHeader = c.req.header("X-Service-Sync-Code");
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw unauthorized(
      "authentication failed: X-Service-Sync-Code and sync name different organizations",
    );
  }
  const syncCode = fromHeader ?? fromQuery;
  if (!syncCode)
    throw unauthorized(
      "authentication failed: send X-Service-Sync-Code or the sync query parameter",
    );
  const org = await organizationBySyncCode(credentialDeps(c), syncCode);
  if (!org) throw authenticationFailed(c, unauthorized("authentication failed: unknown sync code"));
  return org;
}

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
  // For the request log; no plan rate limit (docs/design.md): player traffic is bounded per client
  // (IPv4 address, IPv6 /64) and by the organization's ingestion ceiling.
  c.set("auth", {
    org,
    subOrg: null,
    via: "player",
    versions: credentialVersions({ org, subOrg: null }),
  });
  const config = c.get("config");
  const batch = await readBatch(c);
  // The isolate's one clock (shared/isolate-memory.ts), as the middleware reads it.
  const nowMs = isolateNow();

  const ip = clientIp(c.req.raw);
  const defer = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
  const refuse = (kind: "address" | "ceiling", d: RateLimitDecision, message: string) => {
    refusals.add(c.env.EVENTS_QUEUE, org.id, kind, batch.events.length, nowMs, defer);
    return new ApiError(429, message, { "Retry-After": String(d.resetSeconds) });
  };
  if (ip) {
    const d = perAddress.hit(
      c.env.RATE_LIMITS,
      `events:${addressBucket(ip)}`,
      config.eventsPerIpPerMinute,
      nowMs,
      defer,
      batch.events.length,
    );
    if (!d.allowed)
      throw refuse(
        "address",
        d,
        `too many events from this address (an IPv6 client counts by its /64): at most ${d.limit} a minute`,
      );
  }

  const token = batch.token ?? c.req.header("X-Service-Player-Token");
  let tokenContentKey: string | null = null;
  if (token !== undefined) {
    const check = org.playerTokenKey
      ? await verifyPlayerToken(
          org.playerTokenKey,
          org.organizationKey,
          token,
          Math.floor(nowMs / 1000),
        )
      : {
          ok: false as const,
          reason: "this organization has no player token key (rotate the API secret)",
        };
    if (!check.ok)
      throw authenticationFailed(c, unauthorized(`authentication failed: ${check.reason}`));
    tokenContentKey = check.contentKey;
  } else if (org.playerTokensRequired) {
    throw unauthorized(
      "authentication failed: this organization requires a signed player token (token in the body or X-Service-Player-Token)",
    );
  }
  // After the token: a batch that cannot authenticate must not spend the organization's ceiling.
  const ceiling = ingestionCeilings(org.plan, config).eventsPerMinute;
  const d = perOrganization.hit(
    c.env.RATE_LIMITS,
    `events-org:${org.id}`,
    ceiling,
    nowMs,
    defer,
    batch.events.length,
  );
  if (!d.allowed)
    throw refuse(
      "ceiling",
      d,
      `too many events for this organization: at most ${d.limit} a minute (its plan's ceiling); GET /v2/ingestion counts the refused`,
    );

  const source = {
    now: nowMs,
    maxAgeDays: config.eventsMaxAgeDays,
    country: requestCountry(c.req.raw),
    ip,
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
