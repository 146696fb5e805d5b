// Shared helpers for the dev, seed and admin scripts: the project root and running wrangler
// as a child process.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
 * The D1 bindings of wrangler.toml, in its order: DB (the catalog), then the statistics shards
 * STATS_DB, STATS_DB_1, … (however many it declares: the shard count is configuration).
 */
export function d1Bindings() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  return [...toml.matchAll(/\[\[d1_databases\]\][^[]*?binding\s*=\s*"([^"]+)"/g)].map((m) => String(m[1]));
}

/**
 * Applies the pending D1 migrations of every database of wrangler.toml (the catalog, DB, and
 * each statistics shard) in wrangler's local state or in persistTo, or with remote: true in the
 * deployed databases. Idempotent. Answers the names of the migrations applied now, per binding.
 */
export async function applyMigrations({ persistTo, remote = false } = {}) {
  const applied = {};
  for (const binding of d1Bindings()) {
    const where = remote ? ["--remote"] : ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
    const out = await runWrangler(["d1", "migrations", "apply", binding, ...where], { quiet: true });
    // wrangler redraws its progress table per migration: each name once.
    applied[binding] = [...new Set(out.split("\n").filter((l) => /│ \S+\.sql\s+│ ✅/.test(l)).map((l) => l.split("│")[1].trim()))];
  }
  return applied;
}
