import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import * as handlers from "./analytics.handlers";
import * as routes from "./analytics.routes";

const router = createRouter();
router.use(
  "/v2/analytics/*",
  cacheable("private, max-age=60", ["X-Service-Sync-Code", "X-Service-MMI-Key"]),
);

export default router
  .openapi(routes.totals, handlers.totals)
  .openapi(routes.analytics, handlers.analytics);
