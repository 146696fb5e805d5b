// Shared helpers for the dev, seed and admin scripts: the project root and running wrangler
// as a child process.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Project root (two levels above scripts/lib), so the scripts work from any cwd. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// The project's own wrangler (what `npx wrangler` resolves to), run with node directly: npx
// adds npm and sh layers that die on SIGTERM without passing it on, orphaning a running
// `wrangler dev`; wrangler's bin forwards signals to its CLI process itself.
const LOCAL_BIN = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
// Windows resolves npx to npx.cmd, which Node 20 only runs through a shell.
const isWindows = process.platform === "win32";
const quote = (arg) => (isWindows && /[\s"]/.test(arg) ? `"${arg.replace(/"/g, '\\"')}"` : arg);

/**
 * Spawns `wrangler <args>` in the project root. CI=true keeps wrangler from prompting
 * (confirmations, login, error reports), so scripts never hang waiting for input.
 */
export function spawnWrangler(args, { stdio = "inherit" } = {}) {
  const options = { cwd: ROOT, env: { ...process.env, CI: "true" }, stdio };
  if (existsSync(LOCAL_BIN)) return spawn(process.execPath, [LOCAL_BIN, ...args], options);
  return spawn("npx", ["wrangler", ...args].map(quote), { ...options, shell: isWindows });
}

/**
 * Runs wrangler to completion. With quiet, its output is buffered and shown only when it fails
 * (wrangler is chatty; a successful seed needs no wall of text). Rejects on a non-zero exit.
 */
export function runWrangler(args, { quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnWrangler(args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (quiet) {
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
    }
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(output);
      if (quiet && output) process.stderr.write(output);
      reject(new Error(`wrangler ${args.join(" ")} exited with ${signal ?? `code ${code}`}`));
    });
  });
}

/**
 * The D1 databases of wrangler.toml, in its order: DB (the catalog), then the statistics shards
 * STATS_DB, STATS_DB_1, … (however many it declares: the shard count is configuration), each
 * with its database_id (which also names its local file) and migrations directory.
 */
export function d1Databases() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  return toml
    .split(/^\[\[d1_databases\]\]\s*$/m)
    .slice(1)
    .map((block) => {
      const field = (name) => block.match(new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, "m"))?.[1];
      return {
        binding: String(field("binding")),
        id: String(field("database_id")),
        migrationsDir: join(ROOT, field("migrations_dir") ?? "migrations"),
      };
    });
}

export function d1Bindings() {
  return d1Databases().map((d) => d.binding);
}

/**
 * Applies the pending D1 migrations of every database of wrangler.toml (the catalog, DB, and
 * each statistics shard) in wrangler's local state or in persistTo, or with remote: true in the
 * deployed databases. Idempotent. Answers the names of the migrations applied now, per binding.
 * @param {{ persistTo?: string, remote?: boolean }} [options]
 * @returns {Promise<Record<string, string[]>>}
 */
export async function applyMigrations({ persistTo, remote = false } = {}) {
  if (!remote) return applyLocalMigrations(persistTo ?? join(ROOT, ".wrangler", "state"));
  const applied = {};
  for (const binding of d1Bindings()) {
    const out = await runWrangler(["d1", "migrations", "apply", binding, "--remote"], {
      quiet: true,
    });
    // wrangler redraws its progress table per migration: each name once.
    applied[binding] = [
      ...new Set(
        out
          .split("\n")
          .filter((l) => /│ \S+\.sql\s+│ ✅/.test(l))
          .map((l) => l.split("│")[1].trim()),
      ),
    ];
  }
  return applied;
}

/**
 * The local databases, in one Miniflare (the engine under `wrangler dev` and `wrangler d1 ...
 * --local`, over the same files) instead of a wrangler process per database: the bookkeeping
 * is wrangler's own (table d1_migrations, one row per file applied, each file in one batch with
 * its row), so `wrangler d1 migrations apply --local` and `list` agree with it.
 */
async function applyLocalMigrations(state) {
  const { Miniflare } = await import("miniflare");
  const databases = d1Databases();
  const mf = new Miniflare({
    modules: true,
    script: "export default {}",
    d1Databases: Object.fromEntries(databases.map((d) => [d.binding, d.id])),
    d1Persist: join(state, "v3", "d1"),
  });
  try {
    const applied = {};
    for (const { binding, migrationsDir } of databases) {
      const db = await mf.getD1Database(binding);
      await db
        .prepare(
          "CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
        )
        .run();
      const done = new Set(
        (await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name),
      );
      applied[binding] = [];
      for (const name of readdirSync(migrationsDir)
        .filter((f) => f.endsWith(".sql"))
        .sort()) {
        if (done.has(name)) continue;
        // drizzle-kit's breakpoints separate the statements (the hand-written files keep them too).
        const statements = readFileSync(join(migrationsDir, name), "utf8")
          .split("--> statement-breakpoint")
          .map((q) => q.trim())
          .filter((q) => q.replace(/--[^\n]*(\n|$)/g, "").trim() !== "");
        await db.batch([
          ...statements.map((q) => db.prepare(q)),
          db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name),
        ]);
        applied[binding].push(name);
      }
    }
    return applied;
  } finally {
    await mf.dispose();
  }
}
