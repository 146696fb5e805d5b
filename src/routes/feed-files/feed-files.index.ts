import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import { publicReads } from "../../middleware/public-reads";
import * as handlers from "./feed-files.handlers";
import * as routes from "./feed-files.routes";

const router = createRouter();
// A root-level path with a pattern: routed by its regex (so it cannot shadow /docs and the
// other root paths) and described in the OpenAPI document by hand.
router.openAPIRegistry.registerPath(routes.legacyFile);
router.get(
  "/:file{[A-Za-z0-9_-]{1,64}-feed\\.json}",
  routes.feedFileCache,
  publicReads,
  handlers.legacyFile,
);
router.use(routes.jsonFeed.path, cacheable(handlers.FEED_CACHE_CONTROL));

export default router
  .openapi(routes.orgFeedList, handlers.orgFeedList)
  .openapi(routes.feedVideos, handlers.feedVideos)
  .openapi(routes.feedMetadata, handlers.feedMetadata)
  .openapi(routes.jsonFeed, handlers.jsonFeed);
