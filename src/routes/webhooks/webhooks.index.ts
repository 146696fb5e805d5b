import { createRouter } from "../../http/router";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.show, handlers.show)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.rotate, handlers.rotate)
  .openapi(routes.deliveries, handlers.deliveries)
  .openapi(routes.redeliver, handlers.redeliver);
