// Every entitlement, mirroring ENTITLEMENTS in src/db/schema.ts (the scripts are plain Node and
// do not import the worker's TypeScript). Used by the demo seed and the bulk catalog.
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
