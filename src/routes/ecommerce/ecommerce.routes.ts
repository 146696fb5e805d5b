// Ecommerce items (E12 ecommerce_info): GET/POST/PUT/DELETE /v2/ecommerce (write credentials,
// ecommerce entitlement).
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { okEnvelope } from "../../schemas/common";
import { ecommerceItem, ecommerceItemBody, ecommerceKeyQuery } from "../../schemas/events";

const base = {
  path: "/v2/ecommerce",
  tags: ["Statistics"],
  security: SECURITY.write,
  middleware: credentials("write"),
};
const itemResponse = jsonContent(okEnvelope(ecommerceItem, "EcommerceItemResponse"), "The item");

export const list = createRoute({
  ...base,
  method: "get",
  operationId: "listEcommerceItems",
  summary: "List ecommerce items",
  responses: {
    200: jsonContent(okEnvelope(z.array(ecommerceItem), "EcommerceItemList"), "Every item, by key"),
    ...koErrors(401, 403, 429),
  },
});

export const create = createRoute({
  ...base,
  method: "post",
  operationId: "createEcommerceItem",
  summary: "Create an ecommerce item",
  description:
    "ecommerceKey is what players send as ecommerceKey in events; E12 ecommerce_info shows link and name.",
  request: { body: jsonBody(ecommerceItemBody) },
  responses: { 200: itemResponse, ...koErrors(400, 401, 403, 413, 429) },
});

export const replace = createRoute({
  ...base,
  method: "put",
  operationId: "updateEcommerceItem",
  summary: "Replace an ecommerce item's link, name, image and price",
  request: { body: jsonBody(ecommerceItemBody) },
  responses: { 200: itemResponse, ...koErrors(400, 401, 403, 404, 413, 429) },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteEcommerceItem",
  summary: "Delete an ecommerce item",
  description: "Its statistics stay (E12 then has no ecommerce_info for the key).",
  request: { query: ecommerceKeyQuery },
  responses: { 200: itemResponse, ...koErrors(400, 401, 403, 404, 429) },
});
