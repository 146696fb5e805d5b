import type { Context } from "hono";
import { requireEntitlement } from "../../domain/entitlements";
import {
  createEcommerceItem,
  ecommerceItems,
  removeEcommerceItem,
  replaceEcommerceItem,
} from "../../domain/stats/ecommerce";
import type { AppEnv } from "../../http/context";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./ecommerce.routes";

/** The organization, once its ecommerce entitlement is checked. */
function entitled(c: Context<AppEnv>) {
  const { org } = c.get("auth");
  requireEntitlement(org, "ecommerce", "ecommerce items");
  return org;
}

const ok = <T>(data: T) => ({ status: "ok" as const, message: "ok" as const, data });
const now = () => new Date().toISOString();

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json(ok(await ecommerceItems(c.get("db"), entitled(c))), 200);

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(ok(await createEcommerceItem(c.get("db"), entitled(c), c.req.valid("json"), now())), 200);

export const replace: AppRouteHandler<typeof routes.replace> = async (c) =>
  c.json(ok(await replaceEcommerceItem(c.get("db"), entitled(c), c.req.valid("json"), now())), 200);

export const remove: AppRouteHandler<typeof routes.remove> = async (c) =>
  c.json(
    ok(await removeEcommerceItem(c.get("db"), entitled(c), c.req.valid("query").ecommerceKey)),
    200,
  );
