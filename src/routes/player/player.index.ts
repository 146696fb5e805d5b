import { createRouter } from "../../http/router";
import * as handlers from "./player.handlers";
import * as routes from "./player.routes";

export default createRouter()
  .openapi(routes.player, handlers.player)
  .openapi(routes.list, handlers.list)
  .openapi(routes.show, handlers.show)
  .openapi(routes.create, handlers.create)
  .openapi(routes.replace, handlers.replace)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.showSettings, handlers.showSettings)
  .openapi(routes.updateSettings, handlers.updateSettings);
