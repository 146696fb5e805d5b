import type { Context } from "hono";
import { loadContentOr404 } from "../../domain/content/content";
import { organizationLadder, setOrganizationLadder } from "../../domain/renditions";
import { contentRenditions, retryRenditions as retry } from "../../domain/renditions-retry";
import type { AppEnv } from "../../http/context";
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { forbidden } from "../../shared/errors";
import type * as routes from "./renditions.routes";

/** The ladder belongs to the whole organization. */
function organizationId(c: Context<AppEnv>): number {
  const { org, subOrg } = c.get("auth");
  if (subOrg) throw forbidden("a sub-organization's scope cannot change the organization's ladder");
  return org.id;
}

export const showLadder: AppRouteHandler<typeof routes.showLadder> = async (c) =>
  c.json(await organizationLadder(c.get("db"), organizationId(c)), 200);

export const updateLadder: AppRouteHandler<typeof routes.updateLadder> = async (c) =>
  c.json(
    await setOrganizationLadder(
      c.get("db"),
      organizationId(c),
      c.req.valid("json").rungs,
      requestDeps(c).now,
    ),
    200,
  );

export const contentRenditionStates: AppRouteHandler<typeof routes.contentRenditionStates> = async (
  c,
) => {
  const { contentKey } = c.req.valid("query");
  const content = await loadContentOr404(c.get("db"), requestScope(c), contentKey);
  return c.json(await contentRenditions(requestDeps(c), content), 200);
};

export const retryRenditions: AppRouteHandler<typeof routes.retryRenditions> = async (c) => {
  const { contentKey, rung } = c.req.valid("json");
  return c.json(await retry(requestDeps(c), requestScope(c), contentKey, rung), 200);
};
