// Syndication windows (operator-set): when and where a video is shown to its network. "Open at
// an instant" is written once, here, and used by network listings, feed files and json-feed.
import { asc, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunkRows, type Db, inList } from "./client";
import { contents, type Syndication, syndications } from "./schema";

/** The window (a `syndications` row) is open at `now` (ISO timestamp): started, not stopped. */
export function windowOpenAt(now: string): SQL {
  return sql`${syndications.startTime} <= ${now} and (${syndications.stopTime} is null or ${syndications.stopTime} > ${now})`;
}

/** The window covers the country (alpha-3; null: unknown): empty geos or "-" mean everywhere. */
export function windowCovers(country: string | null): SQL {
  const anywhere = sql`${syndications.geos} = '[]'`;
  return country
    ? sql`(${anywhere} or exists (select 1 from json_each(${syndications.geos}) where value in ('-', ${country})))`
    : sql`(${anywhere} or exists (select 1 from json_each(${syndications.geos}) where value = '-'))`;
}

/** A feed shows a video that has no window, or one open now (feed files are global: geos aside). */
export function publishedByWindows(now: string): SQL {
  const noWindows = sql`not exists (select 1 from ${syndications} where ${syndications.contentId} = ${contents.id})`;
  const openNow = sql`exists (select 1 from ${syndications} where ${syndications.contentId} = ${contents.id} and ${windowOpenAt(now)})`;
  return sql`(${noWindows} or ${openNow})`;
}

/**
 * Each window of a video with the two rules applied at `now` for `country` (playback rights):
 * whether it is open, whether it covers the country, and its bounds (the next change).
 */
export async function windowsAt(db: Db, contentId: number, now: string, country: string | null) {
  return db
    .select({
      startTime: syndications.startTime,
      stopTime: syndications.stopTime,
      open: sql<number>`${windowOpenAt(now)}`.mapWith(Number).as("open"),
      covers: sql<number>`${windowCovers(country)}`.mapWith(Number).as("covers"),
    })
    .from(syndications)
    .where(eq(syndications.contentId, contentId));
}

/** Every window of these videos, by start time. */
export async function syndicationsOf(
  db: Db,
  contentIds: number[],
): Promise<Map<number, Syndication[]>> {
  return groupByContent(
    contentIds.length === 0
      ? []
      : await db
          .select()
          .from(syndications)
          .where(inList(syndications.contentId, contentIds))
          .orderBy(asc(syndications.startTime)),
  );
}

/** The windows of these videos open at `now`, by start time. */
export async function openWindowsOf(
  db: Db,
  contentIds: number[],
  now: string,
): Promise<Map<number, Syndication[]>> {
  return groupByContent(
    contentIds.length === 0
      ? []
      : await db
          .select()
          .from(syndications)
          .where(sql`${inList(syndications.contentId, contentIds)} and ${windowOpenAt(now)}`)
          .orderBy(asc(syndications.startTime)),
  );
}

function groupByContent(rows: Syndication[]): Map<number, Syndication[]> {
  const byContent = new Map<number, Syndication[]>();
  for (const r of rows) byContent.set(r.contentId, [...(byContent.get(r.contentId) ?? []), r]);
  return byContent;
}

/** Videos with a window that opened or closed in (since, until]: their feeds change. */
export async function videosWithWindowChanges(db: Db, since: string, until: string) {
  const changed = sql`(${syndications.startTime} > ${since} and ${syndications.startTime} <= ${until})
    or (${syndications.stopTime} > ${since} and ${syndications.stopTime} <= ${until})`;
  return db
    .selectDistinct({
      id: contents.id,
      organizationId: contents.organizationId,
      subOrganizationId: contents.subOrganizationId,
      categories: contents.categories,
      tags: contents.tags,
      events: contents.events,
    })
    .from(syndications)
    .innerJoin(contents, eq(contents.id, syndications.contentId))
    .where(changed);
}

export interface WindowInput {
  name: string;
  startTime: string;
  stopTime: string | null;
  geos: string[];
}

/** Statements that replace every window of a video (for one batch with the video's update). */
export function replaceWindowsStatements(
  db: Db,
  contentId: number,
  windows: WindowInput[],
): BatchItem<"sqlite">[] {
  const rows = windows.map((w) => ({ contentId, ...w }));
  return [
    db.delete(syndications).where(eq(syndications.contentId, contentId)),
    ...chunkRows(rows, 5).map((chunk) => db.insert(syndications).values(chunk)),
  ];
}
