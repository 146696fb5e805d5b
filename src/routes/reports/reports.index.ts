import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import * as handlers from "./reports.handlers";
import * as routes from "./reports.routes";

const router = createRouter();
// Today's rows change as events arrive: a short private cache, revalidated by ETag.
for (const route of Object.values(routes)) {
  router.use(
    route.path,
    cacheable("private, max-age=60", ["X-Service-Sync-Code", "X-Service-MMI-Key"]),
  );
}

export default router
  .openapi(routes.videoReport, handlers.video)
  .openapi(routes.combinedReport, handlers.combined)
  .openapi(routes.viewerReport, handlers.viewer)
  .openapi(routes.adReport, handlers.ad)
  .openapi(routes.ecommerceReport, handlers.ecommerce);
