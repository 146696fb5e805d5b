import { cacheable } from "../../http/conditional";
import { createRouter } from "../../http/router";
import * as handlers from "./videos.handlers";
import * as routes from "./videos.routes";

const router = createRouter();
// Private to the credentials that asked, and to the country for network videos.
router.use("/v2/videos/*", cacheable("private, max-age=30", ["X-Service-Sync-Code", "X-Service-MMI-Key", "CF-IPCountry"]));
router.use("/get_videos", cacheable("public, max-age=30, stale-while-revalidate=60", ["X-Service-MMI-Key", "CF-IPCountry"]));

export default router.openapi(routes.list, handlers.list).openapi(routes.getVideos, handlers.getVideos);
