import { createRouter } from "../../http/router";
import * as handlers from "./tokens.handlers";
import * as routes from "./tokens.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.revoke, handlers.revoke);
