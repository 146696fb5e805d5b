// The lists the tools and the docs take from the service's own definitions, so they cannot
// drift from it again: the bulk statistics seed's counters (scripts/bulk/stats.mjs) and the
// webhook events docs/tour.md and docs/api.md name. (The console imports the webhook events
// itself; test/e2e/console.test.ts checks it offers every one the API documents.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rng } from "../../scripts/bulk/random.mjs";
import { counters, TABLES } from "../../scripts/bulk/stats.mjs";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../src/shared/counters";
import {
  DOCS_PLACEHOLDERS,
  hlsPushCommand,
  lowLatencyPushCommand,
} from "../../src/shared/encoder-commands";
import { WEBHOOK_EVENT_TYPES } from "../../src/shared/webhook-events";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the bulk statistics seed", () => {
  it("fills every counter the service counts, in each table", () => {
    const service = {
      video_stats: VIDEO_COUNTERS,
      ad_stats: AD_COUNTERS,
      viewer_stats: VIEWER_COUNTERS,
      ecommerce_stats: ECOMMERCE_COUNTERS,
    };
    expect(Object.keys(TABLES).sort()).toEqual(Object.keys(service).sort());
    for (const [table, names] of Object.entries(service)) {
      expect(TABLES[table]!.counters, table).toEqual([...names]);
      // Rows of every size the seed draws (1 to 61): small non-negative integers, and each
      // counter above zero in some of them.
      const r = rng(1, "lists", table);
      const rows = Array.from({ length: 400 }, (_, i) => counters(table, 1 + (i % 61), r));
      for (const [column, name] of names.entries()) {
        const values = rows.map((row) => row[column]!);
        expect(
          values.every((v) => Number.isInteger(v) && v >= 0),
          `${table}.${name}`,
        ).toBe(true);
        expect(Math.max(...values), `${table}.${name}`).toBeGreaterThan(0);
      }
    }
  });
});

describe("the webhook events", () => {
  it("are all named in docs/tour.md and in docs/api.md", () => {
    const tour = readFileSync(join(ROOT, "docs", "tour.md"), "utf8");
    const api = readFileSync(join(ROOT, "docs", "api.md"), "utf8");
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(tour, `docs/tour.md names ${type}`).toContain(`\`${type}\``);
      expect(api, `docs/api.md's table has ${type}`).toContain(`| \`${type}\` |`);
    }
  });
});

describe("the live encoder commands", () => {
  // docs/live.md's code blocks, each a list of lines without their indentation.
  const blocks = [
    ...readFileSync(join(ROOT, "docs/live.md"), "utf8").matchAll(/```sh\n([^`]*)```/g),
  ].map((m) =>
    m[1]!
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
  const trimmed = (command: string) => command.split("\n").map((l) => l.trim());
  const shown = (command: string) =>
    blocks.some((lines) => {
      const wanted = trimmed(command);
      return lines.some((_, i) => wanted.every((w, j) => lines[i + j] === w));
    });

  it("are the ones docs/live.md gives, the console's Go live page shows them filled in", () => {
    expect(shown(hlsPushCommand(DOCS_PLACEHOLDERS.ingestUrl))).toBe(true);
    expect(shown(lowLatencyPushCommand(DOCS_PLACEHOLDERS.ingestBaseUrl))).toBe(true);
  });
});
