import { createRouter } from "../../http/router";
import * as handlers from "./embed.handlers";
import * as routes from "./embed.routes";

export default createRouter().openapi(routes.embed, handlers.embed);
