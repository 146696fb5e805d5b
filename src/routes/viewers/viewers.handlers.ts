import { eraseViewer } from "../../domain/stats/viewers";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./viewers.routes";

export const erase: AppRouteHandler<typeof routes.erase> = async (c) => {
  const data = await eraseViewer(c.get("db"), c.get("auth").org, c.req.valid("query"));
  return c.json({ status: "ok" as const, message: "ok" as const, data }, 200);
};
