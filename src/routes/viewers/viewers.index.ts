import { createRouter } from "../../http/router";
import * as handlers from "./viewers.handlers";
import * as routes from "./viewers.routes";

export default createRouter().openapi(routes.erase, handlers.erase);
