import { createRouter } from "../../http/router";
import { requireAdmin } from "../../middleware/auth";
import * as handlers from "./admin.handlers";
import * as routes from "./admin.routes";

const router = createRouter();
router.use("/admin/*", requireAdmin);

export default router
  .openapi(routes.createOrganization, handlers.createOrganization)
  .openapi(routes.listOrganizations, handlers.listOrganizations)
  .openapi(routes.showOrganization, handlers.showOrganization)
  .openapi(routes.updateOrganization, handlers.updateOrganization)
  .openapi(routes.createSubOrganization, handlers.createSubOrganization)
  .openapi(routes.rotateCredentials, handlers.rotateCredentials)
  .openapi(routes.deleteOrganization, handlers.deleteOrganization)
  .openapi(routes.updateVideo, handlers.updateVideo)
  .openapi(routes.rebuildFeeds, handlers.rebuildFeeds)
  .openapi(routes.moveStatistics, handlers.moveStatistics)
  .openapi(routes.statisticsShards, handlers.statisticsShards)
  .openapi(routes.organizationIngestion, handlers.organizationIngestion);
