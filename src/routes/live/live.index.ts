import { createRouter } from "../../http/router";
import * as handlers from "./live.handlers";
import * as routes from "./live.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.state, handlers.state)
  .openapi(routes.list, handlers.list)
  .openapi(routes.rotateKey, handlers.rotateKey)
  .openapi(routes.end, handlers.end)
  .openapi(routes.ingestPut, handlers.ingestPut)
  .openapi(routes.ingestPost, handlers.ingestPost)
  .openapi(routes.ingestDelete, handlers.ingestDelete)
  .openapi(routes.watch, handlers.watch);
