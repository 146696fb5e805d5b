// inList against the real D1: literals (integers, short string lists) and the bound JSON list
// must select exactly the same rows, whatever the strings hold.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb, inList } from "./client";

const db = createDb(env.DB);

async function selected(
  haystack: readonly (string | number)[],
  wanted: readonly (string | number)[],
) {
  const rows = await db.all<{ value: string | number }>(
    sql`select value from json_each(${JSON.stringify(haystack)}) where ${inList(sql`value`, wanted)} order by key`,
  );
  return rows.map((r) => r.value);
}

describe("inList", () => {
  it("matches strings with quotes, SQL, unicode and control characters exactly", async () => {
    const tricky = [
      "it's",
      "a''b",
      "'); drop table contents; --",
      "é 🎬",
      "x\u0000y",
      "tab\there",
      "\\",
    ];
    const haystack = [...tricky, "its", "ab", "x", "y", "tab"];
    expect(await selected(haystack, tricky)).toEqual(tricky);
    for (const one of tricky) expect(await selected(haystack, [one])).toEqual([one]);
    const contents = await db.all(sql`select count(*) as n from contents`);
    expect(contents).toHaveLength(1); // the table is still there
  });

  it("takes integer ids, and lists past the literal limits, in one statement", async () => {
    const many = Array.from({ length: 2000 }, (_, i) => i * 3);
    expect(await selected(many, [3, 6, 7, 5997])).toEqual([3, 6, 5997]);
    expect(await selected(many, many.slice(0, 600))).toHaveLength(600);
    const words = Array.from({ length: 800 }, (_, i) => `word-${i}`);
    expect(await selected(words, words.slice(100, 700))).toEqual(words.slice(100, 700));
  });
});
