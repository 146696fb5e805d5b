import type { Context } from "hono";
import { organizationBySyncCode } from "../../domain/authentication";
import { ingestEvents } from "../../domain/stats/ingest";
import type { AppEnv } from "../../http/context";
import { unauthorized } from "../../http/errors";
import { clientIp, requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { eventBatchEnvelope } from "../../schemas/events";
import { invalid } from "../../shared/errors";
import { describeZodError } from "../../shared/validation";
import type * as routes from "./events.routes";

/** Player traffic names its organization by sync code: the header, or ?sync= for sendBeacon. */
async function playerOrganization(c: Context<AppEnv>, fromQuery: string | undefined) {
  const fromHeader = c.req.header("X-Service-Sync-Code");
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw unauthorized("authentication failed: X-Service-Sync-Code and sync name different organizations");
  }
  const syncCode = fromHeader ?? fromQuery;
  if (!syncCode) throw unauthorized("authentication failed: send X-Service-Sync-Code or the sync query parameter");
  const org = await organizationBySyncCode(c.get("db"), syncCode);
  if (!org) throw unauthorized("authentication failed: unknown sync code");
  return org;
}

export const ingest: AppRouteHandler<typeof routes.ingest> = async (c) => {
  const org = await playerOrganization(c, c.req.valid("query").sync);
  // For the request log; no rate limit (DESIGN.md: player traffic is bounded by size instead).
  c.set("auth", { org, subOrg: null, via: "player" });
  let body: unknown;
  try {
    // Any Content-Type: sendBeacon sends text/plain, some players none.
    body = JSON.parse(await c.req.text());
  } catch {
    throw invalid("invalid JSON in the request body");
  }
  const envelope = eventBatchEnvelope.safeParse(body);
  if (!envelope.success) throw invalid(describeZodError(envelope.error));
  const result = await ingestEvents(
    {
      db: c.get("db"),
      org,
      now: Date.now(),
      maxAgeDays: c.get("config").eventsMaxAgeDays,
      country: requestCountry(c.req.raw),
      ip: clientIp(c.req.raw),
      userAgent: c.req.header("User-Agent") ?? null,
    },
    envelope.data.events,
  );
  return c.json({ status: "ok" as const, ...result }, 200);
};
