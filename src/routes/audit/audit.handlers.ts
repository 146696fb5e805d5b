import { listAudit } from "../../domain/audit/audit";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { forbidden } from "../../shared/errors";
import type * as routes from "./audit.routes";

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const { org, subOrg } = c.get("auth");
  if (subOrg)
    throw forbidden("a sub-organization's scope cannot read the organization's audit log");
  c.header("Cache-Control", "no-store");
  return c.json(await listAudit(requestDeps(c), org.id, c.req.valid("query")), 200);
};
