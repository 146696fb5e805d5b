// Bench output: markdown tables on stdout and JSON result files under bench/results/.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

const cell = (v) =>
  v === null || v === undefined || v === "" ? "-" : String(v).replace(/\|/g, "\\|");

/**
 * A markdown table. columns: `[{ title, value: (row) => any, align?: "left" | "right" }]`.
 * Cells are padded so the table also reads well in a terminal.
 */
export function markdownTable(columns, rows) {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) =>
    Math.max(c.title.length, 3, ...cells.map((r) => r[i].length)),
  );
  const pad = (text, i) =>
    columns[i].align === "left" ? text.padEnd(widths[i]) : text.padStart(widths[i]);
  const line = (parts) => `| ${parts.join(" | ")} |`;
  return [
    line(columns.map((c, i) => pad(c.title, i))),
    line(
      columns.map((c, i) =>
        c.align === "left" ? ":" + "-".repeat(widths[i] - 1) : "-".repeat(widths[i] - 1) + ":",
      ),
    ),
    ...cells.map((r) => line(r.map(pad))),
  ].join("\n");
}

/** Status column text: "200", or "404" / "200×18 429×2" when not all samples agree. */
export function statusText(summary) {
  const entries = Object.entries(summary.statuses);
  if (entries.length === 1) return entries[0][0] === "0" ? "ERR" : entries[0][0];
  return entries.map(([k, n]) => `${k === "0" ? "ERR" : k}×${n}`).join(" ");
}

/** The standard per-query columns (name, status, rows, D1 cost, latencies). */
export const STANDARD_COLUMNS = [
  { title: "query", value: (r) => r.name, align: "left" },
  { title: "status", value: (r) => statusText(r.summary) },
  { title: "rows", value: (r) => r.summary.rows },
  { title: "count", value: (r) => r.summary.count },
  { title: "D1 rows read (p50)", value: (r) => r.summary.rowsReadP50 },
  { title: "D1 queries", value: (r) => r.summary.queriesP50 },
  { title: "D1 ms p50", value: (r) => r.summary.d1MsP50 },
  { title: "worker ms p50", value: (r) => r.summary.workerMsP50 },
  { title: "latency p50 ms", value: (r) => r.summary.latencyP50 },
  { title: "latency p95 ms", value: (r) => r.summary.latencyP95 },
];

/** Issue 11's goal for a cold read: D1 rows read ≤ 3 × rows returned + 50. */
export const rowsGoal = (r) => (r.summary.rows === null ? null : 3 * r.summary.rows + 50);
export const GOAL_COLUMN = {
  title: "goal ≤ 3×rows+50",
  value: (r) => {
    const goal = rowsGoal(r);
    if (goal === null || r.summary.rowsReadP50 === null) return null;
    return r.summary.rowsReadP50 <= goal ? `ok (${goal})` : `OVER (${goal})`;
  },
};

/** Lines explaining the queries that did not answer 200 (first error of each). */
export function failureNotes(results) {
  return results
    .filter((r) => r.summary.ok < r.samples.length)
    .map((r) => `- ${r.name}: ${statusText(r.summary)}${r.error ? ` — ${r.error}` : ""}`);
}

function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: RESULTS_DIR + "/..",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/** Writes `bench/results/<prefix>-<timestamp>.json` and returns its path. */
export function writeResults(prefix, data) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(RESULTS_DIR, `${prefix}-${stamp}.json`);
  writeFileSync(
    file,
    JSON.stringify({ commit: gitCommit(), node: process.version, ...data }, null, 2) + "\n",
  );
  return file;
}
