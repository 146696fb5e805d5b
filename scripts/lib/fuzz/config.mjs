// The fuzzer's defaults and the demo credentials of `npm run dev`.

/** The demo organizations of `npm run dev` (docs/tour.md "Demo credentials"). */
export const DEMO_CREDENTIALS = {
  adminToken: "dev-admin-token",
  network: "demo-network",
  organizations: [
    {
      organizationKey: "demo",
      syncCode: "demo-sync",
      apiKey: "demo-key",
      apiSecret: "demo-secret",
      apiToken: "demo-token",
      mmiKey: "demo-mmi",
      plan: "enterprise",
    },
    {
      organizationKey: "partner",
      syncCode: "partner-sync",
      apiKey: "partner-key",
      apiSecret: "partner-secret",
      apiToken: "partner-token",
      plan: "standard",
    },
  ],
  protectedOrganizations: ["demo", "partner"],
};

export const DEFAULTS = {
  requests: 1000,
  seconds: 120,
  concurrency: 4,
  timeoutMs: 30_000,
  /** Fresh enterprise organizations created through the operator API for the run (traffic spreads over them). */
  freshOrganizations: 2,
  /** Share of a plan's per-minute limit the fuzzer uses per organization. */
  rateLimitShare: 0.85,
  /** Requests with deliberately wrong credentials per minute (the service throttles 30 failures/min per address). */
  authFailuresPerMinute: 15,
  /** Share of requests sent without any mutation. */
  validShare: 0.25,
};

/** Requests a minute per plan (src/domain/rate-limit.ts). */
export { PLAN_LIMITS } from "../rules.mjs";
export const MAX_KEEP_BYTES = 256 * 1024;
export const EXCERPT = 300;
