// Every entitlement: ENTITLEMENTS of src/shared/vocabulary.ts, through ./rules.mjs. Used by the
// demo seed, the bulk catalog and the fuzzer's test.
export { ENTITLEMENTS as ALL_ENTITLEMENTS } from "./rules.mjs";
