// The worker's rules for the tools, taken from its TypeScript sources rather than copied: Node 20
// cannot import .ts, so the first import bundles scripts/lib/rules.ts with esbuild (a
// devDependency) and loads the result. Reading the sources each time keeps the tools current
// with no build step to forget; it costs one small esbuild run per process.
import { fileURLToPath } from "node:url";
import { withTsModule } from "./ts-module.mjs";

const rules = await withTsModule(fileURLToPath(new URL("./rules.ts", import.meta.url)), (m) => ({
  ...m,
}));

/** Every entitlement (src/shared/vocabulary.ts). */
export const ENTITLEMENTS = [...rules.ENTITLEMENTS];
/** The plans and their requests per minute (src/domain/rate-limit.ts). */
export const PLANS = [...rules.PLANS];
export const PLAN_LIMITS = { ...rules.PLAN_LIMITS };
/** The statistics rows' counters and the event names (src/shared/counters.ts). */
export const VIDEO_COUNTERS = [...rules.VIDEO_COUNTERS];
export const AD_COUNTERS = [...rules.AD_COUNTERS];
export const VIEWER_COUNTERS = [...rules.VIEWER_COUNTERS];
export const ECOMMERCE_COUNTERS = [...rules.ECOMMERCE_COUNTERS];
export const EVENT_NAMES = [...rules.EVENT_NAMES];
/** The fields E9 may sort by and list. */
export const COMBINED_FIELDS = [...rules.COMBINED_FIELDS];
/** Which error shape a path answers with, and that shape's body (src/http/errors.ts). */
export const errorStyleOf = rules.errorStyleOf;
export const errorBody = rules.errorBody;
