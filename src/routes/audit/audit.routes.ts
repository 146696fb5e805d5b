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
  description:
    "Each entry: `at`, `actor` {type: member, token, key or operator; id; name; memberId}, `action` (the route, e.g. `PUT /v2/content`), `object` {type, id}, `changes` (the fields written, with `before` and `after` for settings and rights) and `address` (an IPv4 /24 or IPv6 /48, never the address). Filters: `member` (what a member did, their tokens included), `objectType` and `objectId`, `action`, `from`/`to` (ISO times); pages of `limit` (≤ 200) with `cursor`. Entries are kept 13 months.",
  request: { query: auditQuery },
  responses: { 200: jsonContent(auditPage, "A page of entries"), ...koErrors(400, 401, 403, 429) },
});
