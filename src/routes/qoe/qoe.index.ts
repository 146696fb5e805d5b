import { limitBody } from "../../http/body-limit";
import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import { CMCD_BODY_MAX_BYTES } from "../../schemas/qoe";
import * as handlers from "./qoe.handlers";
import * as routes from "./qoe.routes";

const router = createRouter();
router.use(routes.collect.path, limitBody(CMCD_BODY_MAX_BYTES));
router.use(routes.figures.path, cacheable("private, max-age=60", ["X-Service-Sync-Code"]));

export default router
  .openapi(routes.collect, handlers.collectPost)
  .openapi(routes.collectGet, handlers.collectGet)
  .openapi(routes.views, handlers.views)
  .openapi(routes.alerts, handlers.alerts)
  .openapi(routes.setAlerts, handlers.setAlerts)
  .openapi(routes.figures, handlers.figures);
