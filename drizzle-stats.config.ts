import { defineConfig } from "drizzle-kit";

// The statistics database (binding STATS_DB, database video-catalog-stats): SQL migrations
// generated from src/db/stats/schema.ts into migrations-stats/ (`npm run db:generate:stats`),
// applied with `wrangler d1 migrations apply STATS_DB`. The catalog database has its own
// (drizzle.config.ts, migrations/).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/stats/schema.ts",
  out: "./migrations-stats",
});
