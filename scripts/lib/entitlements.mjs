// Every entitlement, mirroring ENTITLEMENTS in src/shared/vocabulary.ts (the scripts are plain
// Node and do not import the worker's TypeScript; a unit test keeps the two equal). Used by the
// demo seed and the bulk catalog.
export const ALL_ENTITLEMENTS = [
  "network",
  "mmi",
  "watched_by_tput",
  "custom_fields",
  "events",
  "enterprise_player",
  "viewer_analytics",
  "ecommerce",
];
