// DELETE /v2/viewers: erasure of a viewer's statistics (write credentials).
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { okEnvelope } from "../../schemas/common";
import { viewerErasureQuery } from "../../schemas/events";

export const erase = createRoute({
  method: "delete",
  path: "/v2/viewers",
  operationId: "eraseViewer",
  tags: ["Statistics"],
  summary: "Erase a viewer's statistics",
  description:
    "Deletes every viewer row (all days, all content) of a device fingerprint or of a third party user token. Give exactly one.",
  security: SECURITY.write,
  middleware: credentials("write"),
  request: { query: viewerErasureQuery },
  responses: {
    200: jsonContent(
      okEnvelope(z.object({ deleted: z.number() }), "ViewerErasure"),
      "How many viewer rows were deleted",
    ),
    ...koErrors(400, 401, 429),
  },
});
