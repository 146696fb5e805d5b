import {
  changeEndpoint,
  createEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver as redeliverDelivery,
  removeEndpoint,
  rotateSecret,
  showEndpoint,
} from "../../domain/webhooks/endpoints";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./webhooks.routes";

const org = (c: { get(key: "auth"): { org: { id: number } } }) => c.get("auth").org.id;

export const create: AppRouteHandler<typeof routes.create> = async (c) => c.json(await createEndpoint(requestDeps(c), org(c), c.req.valid("json")), 200);

export const list: AppRouteHandler<typeof routes.list> = async (c) => c.json({ webhooks: await listEndpoints(requestDeps(c), org(c)) }, 200);

export const show: AppRouteHandler<typeof routes.show> = async (c) => c.json(await showEndpoint(requestDeps(c), org(c), c.req.valid("param").id), 200);

export const update: AppRouteHandler<typeof routes.update> = async (c) =>
  c.json(await changeEndpoint(requestDeps(c), org(c), c.req.valid("param").id, c.req.valid("json")), 200);

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => c.json(await removeEndpoint(requestDeps(c), org(c), c.req.valid("param").id), 200);

export const rotate: AppRouteHandler<typeof routes.rotate> = async (c) => c.json(await rotateSecret(requestDeps(c), org(c), c.req.valid("param").id), 200);

export const deliveries: AppRouteHandler<typeof routes.deliveries> = async (c) =>
  c.json(await listDeliveries(requestDeps(c), org(c), c.req.valid("param").id, c.req.valid("query")), 200);

export const redeliver: AppRouteHandler<typeof routes.redeliver> = async (c) => {
  const { id, deliveryId } = c.req.valid("param");
  return c.json(await redeliverDelivery(requestDeps(c), org(c), id, deliveryId), 200);
};
