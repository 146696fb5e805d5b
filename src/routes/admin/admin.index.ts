import { createRouter } from "../../http/router";
import { auditWrites } from "../../middleware/audit";
import { requireAdmin } from "../../middleware/auth";
import * as handlers from "./admin.handlers";
import * as routes from "./admin.routes";

const router = createRouter();
// The operator token, then its writes in the audit log of the organization they concern.
router.use("/admin/*", requireAdmin, auditWrites);

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
