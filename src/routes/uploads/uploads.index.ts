import { createRouter } from "../../http/router";
import * as handlers from "./uploads.handlers";
import * as routes from "./uploads.routes";

export default createRouter()
  .openapi(routes.part, handlers.part)
  .openapi(routes.thumbnail, handlers.thumbnail);
