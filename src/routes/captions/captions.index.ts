import { createRouter } from "../../http/router";
import * as handlers from "./captions.handlers";
import * as routes from "./captions.routes";

export default createRouter()
  .openapi(routes.listTracks, handlers.listTracks)
  .openapi(routes.generate, handlers.generate)
  .openapi(routes.uploadTrack, handlers.uploadTrack)
  .openapi(routes.readTrack, handlers.readTrack)
  .openapi(routes.changeTrack, handlers.changeTrack)
  .openapi(routes.deleteTrack, handlers.deleteTrack)
  .openapi(routes.showSettings, handlers.showSettings)
  .openapi(routes.updateSettings, handlers.updateSettings);
