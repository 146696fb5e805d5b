import { createRouter } from "../../http/router";
import * as handlers from "./feeds.handlers";
import * as routes from "./feeds.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.show, handlers.show)
  .openapi(routes.replace, handlers.replace)
  .openapi(routes.remove, handlers.remove);
