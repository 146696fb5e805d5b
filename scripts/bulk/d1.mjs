// The local D1 databases through `wrangler d1 execute <binding> --local` (scripts/lib/wrangler.mjs
// runs wrangler): queries with JSON results, SQL files, and where the database file lives. The
// binding is DB (the catalog) unless an option says STATS_DB (the statistics); `remote: true`
// runs against the deployed database instead (operator scripts only).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runWrangler, spawnWrangler } from "../lib/wrangler.mjs";

function localArgs(persistTo, binding = "DB", remote = false) {
  if (remote) return ["d1", "execute", binding, "--remote"];
  return ["d1", "execute", binding, "--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
}

/**
 * Runs SQL (one or more statements) and returns one array of rows per statement. wrangler's
 * --json output is the only thing on stdout; errors come as `{"error": {"text"}}` or on stderr.
 */
export function d1Query(sql, { persistTo, binding, remote } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnWrangler(
      [...localArgs(persistTo, binding, remote), "--json", "--command", sql],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      let parsed;
      try {
        parsed = JSON.parse(stdout);
      } catch {
        parsed = null;
      }
      if (code === 0 && Array.isArray(parsed)) return resolve(parsed.map((r) => r.results ?? []));
      const message =
        parsed?.error?.text ?? (stderr.trim() || stdout.trim() || `exit code ${code}`);
      reject(
        new Error(
          `D1 query failed: ${message}\n  SQL: ${sql.length > 300 ? sql.slice(0, 300) + "..." : sql}`,
        ),
      );
    });
  });
}

/** Rows of a single-statement query. */
export async function d1Rows(sql, options) {
  const [rows] = await d1Query(sql, options);
  return rows ?? [];
}

/**
 * Runs a SQL file. wrangler executes a local file as one D1 batch, i.e. one transaction:
 * a failing file leaves nothing of itself behind.
 */
export function d1ExecFile(file, { persistTo, binding, remote } = {}) {
  return runWrangler([...localArgs(persistTo, binding, remote), "--file", file, "--yes"], {
    quiet: true,
  });
}

/** Bytes of the local D1 database file(s) (SQLite file plus WAL), or null if not found. */
export function localDatabaseBytes({ persistTo } = {}) {
  const dir = join(
    persistTo ?? join(ROOT, ".wrangler", "state"),
    "v3",
    "d1",
    "miniflare-D1DatabaseObject",
  );
  if (!existsSync(dir)) return null;
  let best = null;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".sqlite") || name === "metadata.sqlite") continue;
    let bytes = statSync(join(dir, name)).size;
    for (const extra of ["-wal"]) {
      if (existsSync(join(dir, name + extra))) bytes += statSync(join(dir, name + extra)).size;
    }
    if (best === null || bytes > best) best = bytes;
  }
  return best;
}
