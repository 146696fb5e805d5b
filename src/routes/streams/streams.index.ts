import { createRouter } from "../../http/router";
import * as handlers from "./streams.handlers";
import * as routes from "./streams.routes";

export default createRouter().openapi(routes.stream, handlers.stream);
