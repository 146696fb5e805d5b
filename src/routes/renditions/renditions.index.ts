import { createRouter } from "../../http/router";
import * as handlers from "./renditions.handlers";
import * as routes from "./renditions.routes";

export default createRouter()
  .openapi(routes.showLadder, handlers.showLadder)
  .openapi(routes.updateLadder, handlers.updateLadder)
  .openapi(routes.contentRenditionStates, handlers.contentRenditionStates)
  .openapi(routes.retryRenditions, handlers.retryRenditions);
