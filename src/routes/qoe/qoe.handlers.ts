import type { Context } from "hono";
import { EventsNotQueued } from "../../domain/stats/ingest";
import { qoeAlerts, setQoeAlerts } from "../../domain/stats/qoe/alerts";
import { collectCmcd } from "../../domain/stats/qoe/collect";
import { qoeFigures, qoeViews } from "../../domain/stats/qoe/figures";
import { CMCD_REPORTS_MAX, type CmcdPayload } from "../../domain/stats/qoe/reports";
import type { AppEnv } from "../../http/context";
import { ApiError } from "../../http/errors";
import { requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { admitPlayerBatch, playerOrganization } from "../../middleware/player-ingestion";
import { CMCD_HEADERS } from "../../shared/cmcd";
import { deviceTypeOfUserAgent } from "../../shared/device";
import { invalid } from "../../shared/errors";
import type * as routes from "./qoe.routes";

/** Every payload of the request: the body's lines, the CMCD= query, the CMCD-* headers (one report). */
async function payloadsOf(c: Context<AppEnv>, query: { CMCD?: string }): Promise<CmcdPayload[]> {
  const payloads: CmcdPayload[] = [];
  if (c.req.method === "POST") {
    const lines = (await c.req.text()).split(/\r?\n/);
    lines.forEach((text, i) => {
      if (text.trim() !== "") payloads.push({ where: `line ${i + 1}`, text });
    });
  }
  if (query.CMCD !== undefined) payloads.push({ where: "the CMCD query", text: query.CMCD });
  const headers = CMCD_HEADERS.flatMap((name) => c.req.header(name) ?? []).join(",");
  if (headers !== "") payloads.push({ where: "the CMCD-* headers", text: headers });
  if (payloads.length === 0)
    throw invalid(
      "no CMCD report: send application/cmcd lines in the body, a CMCD= query or CMCD-* headers",
    );
  if (payloads.length > CMCD_REPORTS_MAX)
    throw invalid(
      `at most ${CMCD_REPORTS_MAX} reports a request (this one has ${payloads.length})`,
    );
  return payloads;
}

interface CollectorQuery {
  sync?: string;
  CMCD?: string;
  contentKey?: string;
  playerId?: string;
  token?: string;
}

async function collect(c: Context<AppEnv>, query: CollectorQuery) {
  const org = await playerOrganization(c, query.sync);
  const payloads = await payloadsOf(c, query);
  const { tokenContentKey } = await admitPlayerBatch(
    c,
    org,
    payloads.length,
    query.token ?? c.req.header("X-Service-Player-Token"),
    "the token query parameter or X-Service-Player-Token",
  );
  try {
    const result = await collectCmcd(c.env.EVENTS_QUEUE, org, payloads, {
      now: Date.now(),
      country: requestCountry(c.req.raw),
      device: deviceTypeOfUserAgent(c.req.header("User-Agent")),
      playerId: query.playerId,
      contentKey: query.contentKey,
      tokenContentKey,
    });
    return c.json({ status: "ok" as const, ...result }, 200);
  } catch (err) {
    if (err instanceof EventsNotQueued)
      throw new ApiError(
        503,
        "reports not queued: the event queue is unavailable; send them again later",
        { "Retry-After": "10" },
      );
    throw err;
  }
}

export const collectPost: AppRouteHandler<typeof routes.collect> = (c) =>
  collect(c, c.req.valid("query"));

export const collectGet: AppRouteHandler<typeof routes.collectGet> = (c) =>
  collect(c, c.req.valid("query"));

const ok = <T>(data: T) => ({ status: "ok" as const, message: "ok" as const, data });

export const figures: AppRouteHandler<typeof routes.figures> = async (c) =>
  c.json(ok(await qoeFigures(c.get("db"), c.get("auth"), c.req.valid("query"))), 200);

export const views: AppRouteHandler<typeof routes.views> = async (c) =>
  c.json(ok(await qoeViews(c.get("db"), c.get("auth"), c.req.valid("query"), Date.now())), 200);

export const alerts: AppRouteHandler<typeof routes.alerts> = async (c) =>
  c.json(ok(await qoeAlerts(c.get("db"), c.get("auth"))), 200);

export const setAlerts: AppRouteHandler<typeof routes.setAlerts> = async (c) =>
  c.json(ok(await setQoeAlerts(c.get("db"), c.get("auth"), c.req.valid("json"), new Date())), 200);
