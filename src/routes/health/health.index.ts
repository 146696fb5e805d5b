// GET /healthz: liveness for load balancers and monitors, answered without D1, R2 or KV (also
// the baseline route of `npm run bench:load`). Operational, so not in the OpenAPI document.
import { createRouter } from "../../http/router";

export default createRouter().get("/healthz", (c) => {
  c.header("Cache-Control", "no-store");
  return c.json({ status: "ok" as const }, 200);
});
