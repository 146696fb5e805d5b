// The text index's daily merge (src/domain/text-index.ts), on the real D1 FTS5 index: every
// write adds a segment; the cron merges them into one in bounded steps, once a UTC day, and
// searches find the same rows.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { keepTextIndexMerged } from "../src/domain/text-index";

const pages = async () =>
  (await env.DB.prepare("select count(*) as n from contents_fts_data").first<number>("n"))!;
const found = async () =>
  (await env.DB.prepare(
    "select count(*) as n from contents_fts where contents_fts match 'wombat'",
  ).first<number>("n"))!;

describe("the text index's daily merge", () => {
  it("merges the segments of many writes into one, step by step, once a day; searches find the same rows", async () => {
    // Twelve writes, each its own transaction: twelve segments.
    for (let i = 0; i < 12; i++) {
      await env.DB.prepare(
        "insert into contents_fts (rowid, title, description, scope) values (?, ?, '', 'all o999999')",
      )
        .bind(-(900_000 + i), `wombat number ${i}`)
        .run();
    }
    const before = await pages();
    expect(await found()).toBe(12);
    const db = createDb(env.DB);
    const day = new Date("2026-11-27T10:00:00Z");

    // One step per run: the first merges, the next finds nothing left and marks the day.
    expect(await keepTextIndexMerged(db, day, 1)).toEqual({ steps: 1, done: false });
    const after = await pages();
    expect(after).toBeLessThan(before);
    expect(await keepTextIndexMerged(db, day, 1)).toEqual({ steps: 0, done: true });
    expect(await found()).toBe(12);

    // The same day again: nothing asked of the index. The next day: one look, nothing to merge.
    await env.DB.prepare(
      "insert into contents_fts (rowid, title, description, scope) values (-900100, 'wombat again', '', 'all o999999')",
    ).run();
    expect(await keepTextIndexMerged(db, day)).toEqual({ steps: 0, done: true });
    expect(await pages()).toBeGreaterThan(after);
    expect(await keepTextIndexMerged(db, new Date("2026-11-28T00:01:00Z"))).toEqual({
      steps: 1,
      done: true,
    });
    expect(await pages()).toBe(after);
    expect(await found()).toBe(13);
  });
});
