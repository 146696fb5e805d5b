import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import * as handlers from "./videos.handlers";
import * as routes from "./videos.routes";

const router = createRouter();
// Private to the credentials that asked, and to the country for network videos.
router.use(
  "/v2/videos/*",
  cacheable("private, max-age=30", ["X-Service-Sync-Code", "X-Service-MMI-Key", "CF-IPCountry"]),
);
// Private: the answer is for the sync code's holder only (a shared cache must not keep it).
router.use(
  "/get_videos",
  cacheable("private, max-age=30", ["X-Service-Sync-Code", "X-Service-MMI-Key", "CF-IPCountry"]),
);

export default router
  .openapi(routes.list, handlers.list)
  .openapi(routes.getVideos, handlers.getVideos);
