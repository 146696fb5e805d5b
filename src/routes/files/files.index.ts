import { createRouter } from "../../http/router";
import * as handlers from "./files.handlers";
import * as routes from "./files.routes";

export default createRouter()
  .openapi(routes.media, handlers.media)
  .openapi(routes.thumbnail, handlers.thumbnail);
