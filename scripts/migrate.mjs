// Applies the D1 migrations of every database in wrangler.toml: the catalog (DB, migrations/)
// and each statistics shard (STATS_DB, STATS_DB_1, …, migrations-stats/).
//   npm run db:migrate:local      the local state (what `npm run dev` uses)
//   npm run db:migrate:remote     the deployed databases
import { applyMigrations } from "./lib/wrangler.mjs";

const remote = process.argv.includes("--remote");
try {
  for (const [binding, names] of Object.entries(await applyMigrations({ remote }))) {
    console.log(
      `${binding} (${remote ? "remote" : "local"}): ${names.length ? `applied ${names.join(", ")}` : "up to date"}`,
    );
  }
} catch (err) {
  console.error(`migrations failed: ${err.message}`);
  process.exitCode = 1;
}
