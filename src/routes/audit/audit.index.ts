import { createRouter } from "../../http/router";
import * as handlers from "./audit.handlers";
import * as routes from "./audit.routes";

export default createRouter().openapi(routes.list, handlers.list);
