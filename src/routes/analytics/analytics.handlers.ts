import { analytics as analyticsPage } from "../../domain/stats/analytics";
import { organizationTotals } from "../../domain/stats/breakdowns";
import { requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { alpha3 } from "../../shared/geo";
import type * as routes from "./analytics.routes";

export const analytics: AppRouteHandler<typeof routes.analytics> = async (c) => {
  const requester = {
    db: c.get("db"),
    caller: c.get("auth"),
    country: alpha3(requestCountry(c.req.raw)),
    now: new Date().toISOString(),
  };
  return c.json(
    await analyticsPage(requester, c.req.valid("param").type, c.req.valid("query")),
    200,
  );
};

export const totals: AppRouteHandler<typeof routes.totals> = async (c) =>
  c.json(await organizationTotals(c.get("db"), c.get("auth"), c.req.valid("query")), 200);
