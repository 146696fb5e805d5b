import { createRouter } from "../../http/router";
import * as handlers from "./organization.handlers";
import * as routes from "./organization.routes";

export default createRouter()
  .openapi(routes.show, handlers.show)
  .openapi(routes.labels, handlers.labels)
  .openapi(routes.rotate, handlers.rotate);
