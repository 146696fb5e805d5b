import { createRouter } from "../../http/router";
import * as handlers from "./content.handlers";
import * as routes from "./content.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.complete, handlers.complete)
  .openapi(routes.thumbnailUrl, handlers.thumbnailUrl)
  .openapi(routes.uploadState, handlers.uploadState)
  .openapi(routes.library, handlers.library)
  .openapi(routes.retrieve, handlers.retrieve)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove);
