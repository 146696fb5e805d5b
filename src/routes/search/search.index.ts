import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import * as handlers from "./search.handlers";
import * as routes from "./search.routes";

const router = createRouter();
for (const path of [
  routes.searchMetadata.path,
  routes.videoByCattag.path,
  routes.searchVideoList.path,
]) {
  router.use(path, cacheable("private, max-age=30", ["X-Service-Sync-Code", "X-Service-MMI-Key"]));
}
router.use(
  routes.searchVideoFeed.path,
  cacheable("public, max-age=60, stale-while-revalidate=300"),
);

export default router
  .openapi(routes.searchMetadata, handlers.searchMetadata)
  .openapi(routes.videoByCattag, handlers.searchMetadata)
  .openapi(routes.searchVideoList, handlers.searchVideoList)
  .openapi(routes.searchVideoFeed, handlers.searchVideoFeed);
