// The worker's own rules that the tools (the fuzzer, the seeds) check or generate against,
// re-exported from src/ so scripts/lib/rules.mjs can bundle them for plain Node.

export { PLAN_LIMITS } from "../../src/domain/rate-limit";
export { errorBody, errorStyleOf } from "../../src/http/errors";
export {
  AD_COUNTERS,
  COMBINED_FIELDS,
  ECOMMERCE_COUNTERS,
  EVENT_NAMES,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../src/shared/counters";
export { ENTITLEMENTS, PLANS } from "../../src/shared/vocabulary";
