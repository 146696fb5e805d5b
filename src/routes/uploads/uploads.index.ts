import { messageErrors } from "../../http/errors";
import { createRouter } from "../../http/router";
import * as handlers from "./uploads.handlers";
import * as routes from "./uploads.routes";

const router = createRouter();
router.use("/v2/uploads/*", messageErrors);

export default router.openapi(routes.part, handlers.part).openapi(routes.thumbnail, handlers.thumbnail);
