// The audit log (docs/api.md "Audit log"): owners and admins. Errors {status: "KO", error}.
import { createRoute } from "@hono/zod-openapi";
import { jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { auditPage, auditQuery } from "../../schemas/members";

export const list = createRoute({
  tags: ["Audit log"],
  security: SECURITY.write,
  middleware: credentials("write"),
  method: "get",
  path: "/v2/audit",
  operationId: "listAudit",
  summary: "Every write: who, what, when, from where; newest first",
  description: 'Owners and admins; kept 13 months (docs/api.md "Audit log").',
  request: { query: auditQuery },
  responses: { 200: jsonContent(auditPage, "A page of entries"), ...koErrors(400, 401, 403, 429) },
});
