import { applyD1Migrations, env } from "cloudflare:test";

// Idempotent: applyD1Migrations skips migrations already applied to this database. The catalog
// and the statistics database each have their own migrations.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Two statistics shards, as in wrangler.toml: every statistics test runs on a sharded layout.
await applyD1Migrations(env.STATS_DB, env.TEST_STATS_MIGRATIONS);
await applyD1Migrations(env.STATS_DB_1!, env.TEST_STATS_MIGRATIONS);
