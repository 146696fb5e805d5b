// The lists the tools and the docs take from the service's own definitions, so they cannot
// drift from it again: the bulk statistics seed's counters (scripts/bulk/stats.mjs).
import { describe, expect, it } from "vitest";
import { rng } from "../../scripts/bulk/random.mjs";
import { counters, TABLES } from "../../scripts/bulk/stats.mjs";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../src/shared/counters";

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
