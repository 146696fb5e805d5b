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
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./webhooks.routes";

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await createEndpoint(requestDeps(c), requestScope(c), c.req.valid("json")), 200);

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json({ webhooks: await listEndpoints(requestDeps(c), requestScope(c)) }, 200);

export const show: AppRouteHandler<typeof routes.show> = async (c) =>
  c.json(await showEndpoint(requestDeps(c), requestScope(c), c.req.valid("param").id), 200);

export const update: AppRouteHandler<typeof routes.update> = async (c) =>
  c.json(
    await changeEndpoint(
      requestDeps(c),
      requestScope(c),
      c.req.valid("param").id,
      c.req.valid("json"),
    ),
    200,
  );

export const remove: AppRouteHandler<typeof routes.remove> = async (c) =>
  c.json(await removeEndpoint(requestDeps(c), requestScope(c), c.req.valid("param").id), 200);

export const rotate: AppRouteHandler<typeof routes.rotate> = async (c) =>
  c.json(await rotateSecret(requestDeps(c), requestScope(c), c.req.valid("param").id), 200);

export const deliveries: AppRouteHandler<typeof routes.deliveries> = async (c) =>
  c.json(
    await listDeliveries(
      requestDeps(c),
      requestScope(c),
      c.req.valid("param").id,
      c.req.valid("query"),
    ),
    200,
  );

export const redeliver: AppRouteHandler<typeof routes.redeliver> = async (c) => {
  const { id, deliveryId } = c.req.valid("param");
  return c.json(await redeliverDelivery(requestDeps(c), requestScope(c), id, deliveryId), 200);
};
