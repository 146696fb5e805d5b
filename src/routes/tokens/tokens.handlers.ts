import { createToken, listOwnTokens, revokeToken } from "../../domain/tokens/tokens";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./tokens.routes";

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const { org, principal } = c.get("auth");
  c.header("Cache-Control", "no-store");
  return c.json(await createToken(requestDeps(c), org.id, principal!, c.req.valid("json")), 200);
};

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const { org, principal } = c.get("auth");
  return c.json({ tokens: await listOwnTokens(requestDeps(c), org.id, principal!) }, 200);
};

export const revoke: AppRouteHandler<typeof routes.revoke> = async (c) => {
  const { org, principal } = c.get("auth");
  return c.json(
    await revokeToken(requestDeps(c), org.id, principal!, c.req.valid("param").id),
    200,
  );
};
