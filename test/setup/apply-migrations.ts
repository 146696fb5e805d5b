import { applyD1Migrations, env } from "cloudflare:test";

// Idempotent: applyD1Migrations skips migrations already applied to this database.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
