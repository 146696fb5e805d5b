import { messageErrors } from "../../http/errors";
import { createRouter } from "../../http/router";
import * as handlers from "./content.handlers";
import * as routes from "./content.routes";

const router = createRouter();
// "/v2/content/*" also matches "/v2/content" itself (and the trailing-slash form).
router.use("/v2/content/*", messageErrors);

export default router
  .openapi(routes.create, handlers.create)
  .openapi(routes.complete, handlers.complete)
  .openapi(routes.retrieve, handlers.retrieve)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove);
