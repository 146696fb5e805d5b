// selectRows against the real D1: the same rows Drizzle's own mapping returns, for every kind of
// column the tables use (JSON, booleans, reals, nulls), whole-table selects and joins alike.
import { env } from "cloudflare:test";
import { desc, eq, getTableColumns, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "./client";
import { contents, organizations } from "./schema";
import { selectRows, selectRowsWithTotal } from "./table-rows";

const db = createDb(env.DB);

async function twoVideos() {
  const key = `rows-${crypto.randomUUID().slice(0, 8)}`;
  const [org] = await db
    .insert(organizations)
    .values({
      organizationKey: key,
      name: "Rows",
      syncCode: `${key}-sync`,
      apiKey: `${key}-key`,
      apiSecretHash: "x",
      entitlements: ["network"],
      playerTokensRequired: true,
      createdAt: "2026-01-01T00:00:00Z",
    })
    .returning();
  const base = {
    organizationId: org!.id,
    contentSize: 1000,
    mediaKey: "m",
    chunkSize: 5,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-02T00:00:00Z",
  };
  await db.insert(contents).values([
    {
      ...base,
      contentKey: `${key}-a`,
      title: 'It\'s a "title" é 🎬',
      categories: ["News", "Sport"],
      tags: [],
      customFields: [{ name: "season", value: "1" }],
      isLive: true,
      removed: false,
      status: "available",
      thumbnailUploaded: true,
      duration: 12.5,
      width: 1280,
      publishedAt: "2026-01-03T00:00:00Z",
    },
    {
      ...base,
      contentKey: `${key}-b`,
      status: "uploading",
      duration: null,
      publishedAt: null,
      thumbnailUrl: null,
    },
  ]);
  return org!.id;
}

describe("selectRows", () => {
  it("returns what Drizzle's own mapping returns, column for column", async () => {
    const organizationId = await twoVideos();
    const query = () =>
      db
        .select()
        .from(contents)
        .where(eq(contents.organizationId, organizationId))
        .orderBy(desc(contents.id));
    const drizzles = await query();
    const ours = await selectRows(db, contents, query());
    expect(drizzles).toHaveLength(2);
    expect(ours).toEqual(drizzles);
    // Decoded, not passed through: JSON arrays, booleans, a real, nulls.
    const a = ours.find((r) => r.status === "available")!;
    expect(a.categories).toEqual(["News", "Sport"]);
    expect(a.customFields).toEqual([{ name: "season", value: "1" }]);
    expect(a.isLive).toBe(true);
    expect(a.removed).toBe(false);
    expect(a.duration).toBe(12.5);
    expect(ours.find((r) => r.status === "uploading")!.publishedAt).toBeNull();
    // Key order as Drizzle's (records are rendered from these objects).
    expect(Object.keys(ours[0]!)).toEqual(Object.keys(drizzles[0]!));
  });

  it("reads a table's columns through a join, and a total beside them", async () => {
    const organizationId = await twoVideos();
    const joined = () =>
      db
        .select(getTableColumns(contents))
        .from(contents)
        .innerJoin(organizations, eq(organizations.id, contents.organizationId))
        .where(eq(contents.organizationId, organizationId))
        .orderBy(contents.id);
    expect(await selectRows(db, contents, joined())).toEqual(await joined());

    const withTotal = (offset: number) =>
      db
        .select({ ...getTableColumns(contents), total: sql<number>`count(*) over ()`.as("total") })
        .from(contents)
        .where(eq(contents.organizationId, organizationId))
        .orderBy(contents.id)
        .limit(1)
        .offset(offset);
    const page = await selectRowsWithTotal(db, contents, withTotal(0));
    expect(page.total).toBe(2);
    expect(page.rows).toEqual(
      await db
        .select()
        .from(contents)
        .where(eq(contents.organizationId, organizationId))
        .orderBy(contents.id)
        .limit(1),
    );
    expect(await selectRowsWithTotal(db, contents, withTotal(5))).toEqual({
      rows: [],
      total: null,
    });
  });
});
