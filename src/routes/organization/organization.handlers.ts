import { labelNames } from "../../domain/console/library";
import { ownOrganization, rotateCredentials } from "../../domain/organizations";
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { forbidden } from "../../shared/errors";
import type * as routes from "./organization.routes";

export const show: AppRouteHandler<typeof routes.show> = async (c) => {
  const { org, subOrg } = c.get("auth");
  return c.json(await ownOrganization(requestDeps(c), org, subOrg), 200);
};

export const labels: AppRouteHandler<typeof routes.labels> = async (c) =>
  c.json(await labelNames(requestDeps(c), requestScope(c)), 200);

export const rotate: AppRouteHandler<typeof routes.rotate> = async (c) => {
  const { org, subOrg, sessionTokenHash } = c.get("auth");
  if (subOrg)
    throw forbidden("a sub-organization's scope cannot rotate the organization's credentials");
  const parts = [...new Set(c.req.valid("json").rotate)];
  const { credentials } = await rotateCredentials(
    requestDeps(c),
    org.organizationKey,
    parts,
    sessionTokenHash ?? null,
  );
  return c.json(
    {
      rotated: parts,
      credentials: { apiSecret: credentials.apiSecret, apiToken: credentials.apiToken },
    },
    200,
  );
};
