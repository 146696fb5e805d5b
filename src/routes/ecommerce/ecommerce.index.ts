import { createRouter } from "../../http/router";
import * as handlers from "./ecommerce.handlers";
import * as routes from "./ecommerce.routes";

export default createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.replace, handlers.replace)
  .openapi(routes.remove, handlers.remove);
