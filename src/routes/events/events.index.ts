import { limitBody } from "../../http/body-limit";
import { createRouter } from "../../http/router";
import { EVENTS_BODY_MAX_BYTES, eventBatch } from "../../schemas/events";
import * as handlers from "./events.handlers";
import * as routes from "./events.routes";

const router = createRouter();
router.openAPIRegistry.register("EventBatch", eventBatch);
router.use(routes.ingest.path, limitBody(EVENTS_BODY_MAX_BYTES));

export default router
  .openapi(routes.ingest, handlers.ingest)
  .openapi(routes.ingestion, handlers.ingestion)
  .openapi(routes.deadLetters, handlers.deadLetters)
  .openapi(routes.replayDeadLetters, handlers.replay);
