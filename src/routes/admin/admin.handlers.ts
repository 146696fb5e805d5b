import { rebuildNow } from "../../domain/feeds/feeds";
import { applyOperatorChanges } from "../../domain/operator-videos";
import * as organizations from "../../domain/organizations";
import { ingestionCeilings } from "../../domain/stats/ceilings";
import { ingestionStatus } from "../../domain/stats/ingestion-status";
import { moveOrganizationStatistics } from "../../domain/stats/shard-moves";
import { statisticsShards as shardsStatus } from "../../domain/stats/shard-status";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./admin.routes";

export const createOrganization: AppRouteHandler<typeof routes.createOrganization> = async (c) =>
  c.json(await organizations.createOrganization(requestDeps(c), c.req.valid("json")), 200);

export const listOrganizations: AppRouteHandler<typeof routes.listOrganizations> = async (c) =>
  c.json({ organizations: await organizations.listOrganizations(requestDeps(c)) }, 200);

export const showOrganization: AppRouteHandler<typeof routes.showOrganization> = async (c) =>
  c.json(
    await organizations.showOrganization(requestDeps(c), c.req.valid("param").organizationKey),
    200,
  );

export const updateOrganization: AppRouteHandler<typeof routes.updateOrganization> = async (c) =>
  c.json(
    {
      organization: await organizations.changeOrganization(
        requestDeps(c),
        c.req.valid("param").organizationKey,
        c.req.valid("json"),
      ),
    },
    200,
  );

export const createSubOrganization: AppRouteHandler<typeof routes.createSubOrganization> = async (
  c,
) =>
  c.json(
    await organizations.createSubOrganization(
      requestDeps(c),
      c.req.valid("param").organizationKey,
      c.req.valid("json"),
    ),
    200,
  );

export const rotateCredentials: AppRouteHandler<typeof routes.rotateCredentials> = async (c) => {
  const parts = c.req.valid("json")?.rotate ?? ["apiSecret", "apiToken"];
  return c.json(
    await organizations.rotateCredentials(
      requestDeps(c),
      c.req.valid("param").organizationKey,
      parts,
    ),
    200,
  );
};

export const deleteOrganization: AppRouteHandler<typeof routes.deleteOrganization> = async (c) =>
  c.json(
    await organizations.deleteOrganization(requestDeps(c), c.req.valid("param").organizationKey),
    200,
  );

export const updateVideo: AppRouteHandler<typeof routes.updateVideo> = async (c) =>
  c.json(
    await applyOperatorChanges(
      requestDeps(c),
      c.req.valid("param").contentKey,
      c.req.valid("json"),
    ),
    200,
  );

export const rebuildFeeds: AppRouteHandler<typeof routes.rebuildFeeds> = async (c) => {
  const q = c.req.valid("json");
  const target =
    q.feedId !== undefined
      ? { feedId: q.feedId }
      : q.contentKey !== undefined
        ? { contentKey: q.contentKey }
        : { all: true as const, afterId: q.afterId, limit: q.limit };
  return c.json(await rebuildNow(requestDeps(c), target, q.force), 200);
};

export const moveStatistics: AppRouteHandler<typeof routes.moveStatistics> = async (c) => {
  const deps = requestDeps(c);
  return c.json(
    await moveOrganizationStatistics(
      deps.db,
      deps.config,
      c.req.valid("param").organizationKey,
      c.req.valid("json").shard,
      deps.now,
    ),
    200,
  );
};

export const statisticsShards: AppRouteHandler<typeof routes.statisticsShards> = async (c) =>
  c.json(await shardsStatus(c.get("db"), new Date()), 200);

export const organizationIngestion: AppRouteHandler<typeof routes.organizationIngestion> = async (
  c,
) => {
  const deps = requestDeps(c);
  const org = await organizations.loadOrganization(deps, c.req.valid("param").organizationKey);
  const status = await ingestionStatus(
    deps.db,
    org,
    ingestionCeilings(org.plan, deps.config),
    c.req.valid("query").days,
    deps.now,
  );
  return c.json({ ...status, statsShard: org.statsShard }, 200);
};
