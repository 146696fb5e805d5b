// What every batch of player traffic passes before it is queued (POST /v2/events, the CMCD
// collector /v2/cmcd; docs/statistics.md "Ingestion"): the organization by its public sync code,
// the per-client limit (IPv4 address, IPv6 /64), the signed player token when the organization
// requires one, and the organization's ceiling. Both routes count against the same limits: a
// client's events and CMCD reports together.
import type { Context } from "hono";
import { organizationBySyncCode } from "../domain/authentication";
import { type RateLimitDecision, RateLimiter } from "../domain/rate-limit";
import { ingestionCeilings } from "../domain/stats/ceilings";
import { verifyPlayerToken } from "../domain/stats/player-tokens";
import { RefusalTally } from "../domain/stats/refusals";
import type { AppEnv } from "../http/context";
import { credentialDeps } from "../http/deps";
import { ApiError, unauthorized } from "../http/errors";
import { clientIp } from "../http/request";
import { addressBucket } from "../shared/client-address";
import { isolateNow } from "../shared/isolate-memory";
import { credentialVersions } from "../shared/versions";
import { authenticationFailed } from "./auth-failures";

/** Events per client (IPv4 address, IPv6 /64) per minute (EVENTS_PER_IP_PER_MINUTE), counted like the plan limits. */
const perAddress = new RateLimiter();
/** Events per organization per minute: the ceiling no pool of addresses passes (domain/stats/ceilings.ts). */
const perOrganization = new RateLimiter();
/** What the two refused, for GET /v2/ingestion. */
const refusals = new RefusalTally();

/** Player traffic names its organization by sync code: the header, or ?sync= for sendBeacon. */
export async function playerOrganization(c: Context<AppEnv>, fromQuery: string | undefined) {
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
  // For the request log; no plan rate limit (docs/design.md): player traffic is bounded per client
  // (IPv4 address, IPv6 /64) and by the organization's ingestion ceiling.
  c.set("auth", {
    org,
    subOrg: null,
    via: "player",
    versions: credentialVersions({ org, subOrg: null }),
  });
  return org;
}

type PlayerOrganization = Awaited<ReturnType<typeof playerOrganization>>;

/**
 * Spends `count` events of the client's and the organization's minute, checking the player token
 * between the two (a batch that cannot authenticate must not spend the organization's ceiling).
 * Throws 429 (with Retry-After) or 401; returns the content key the token is bound to, if any.
 */
export async function admitPlayerBatch(
  c: Context<AppEnv>,
  org: PlayerOrganization,
  count: number,
  token: string | undefined,
  /** Where the route takes the token, for the 401's message. */
  tokenFrom: string,
): Promise<{ tokenContentKey: string | null }> {
  const config = c.get("config");
  // The isolate's one clock (shared/isolate-memory.ts), as the middleware reads it.
  const nowMs = isolateNow();
  const ip = clientIp(c.req.raw);
  const defer = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
  const refuse = (kind: "address" | "ceiling", d: RateLimitDecision, message: string) => {
    refusals.add(c.env.EVENTS_QUEUE, org.id, kind, count, nowMs, defer);
    return new ApiError(429, message, { "Retry-After": String(d.resetSeconds) });
  };
  if (ip) {
    const d = perAddress.hit(
      c.env.RATE_LIMITS,
      `events:${addressBucket(ip)}`,
      config.eventsPerIpPerMinute,
      nowMs,
      defer,
      count,
    );
    if (!d.allowed)
      throw refuse(
        "address",
        d,
        `too many events from this address (an IPv6 client counts by its /64): at most ${d.limit} a minute`,
      );
  }

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
      `authentication failed: this organization requires a signed player token (${tokenFrom})`,
    );
  }
  const ceiling = ingestionCeilings(org.plan, config).eventsPerMinute;
  const d = perOrganization.hit(
    c.env.RATE_LIMITS,
    `events-org:${org.id}`,
    ceiling,
    nowMs,
    defer,
    count,
  );
  if (!d.allowed)
    throw refuse(
      "ceiling",
      d,
      `too many events for this organization: at most ${d.limit} a minute (its plan's ceiling); GET /v2/ingestion counts the refused`,
    );
  return { tokenContentKey };
}
