import { createRouter } from "../../http/router";
import * as handlers from "./playback.handlers";
import * as routes from "./playback.routes";

export default createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.showSettings, handlers.showSettings)
  .openapi(routes.updateSettings, handlers.updateSettings)
  .openapi(routes.mint, handlers.mint);
