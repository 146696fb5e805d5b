import { createRouter } from "../../http/router";
import * as handlers from "./clips.handlers";
import * as routes from "./clips.routes";

export default createRouter().openapi(routes.create, handlers.create);
