// The network listing table: videos shown to their network now (schema.ts, networkListings).
// Refreshed for the videos a write touched (catalogChanged) and for those whose window opened or
// closed since the cron's last run, at the instant given; counted by triggers per network,
// organization and country (network_listing_counts).
import { and, eq, type SQL, sql } from "drizzle-orm";
import { chunkRows, type Db, inList, type Lookup, lookUp, runBatch } from "./client";
import {
  contents,
  networkListingCounts,
  networkListings,
  networks,
  organizations,
  syndications,
} from "./schema";

/**
 * Rows for the given videos at `now`: listable videos of an organization in a network with a
 * window open; geos '[]' when one open window covers everywhere (empty geos or "-"), else the
 * countries the open windows cover.
 */
function insertShown(db: Db, where: SQL, now: string) {
  const open = (alias: string) => {
    const t = sql.raw(alias);
    return sql`${t}.start_time <= ${now} and (${t}.stop_time is null or ${t}.stop_time > ${now})`;
  };
  // (Drizzle's insert-select lists every column in table order: the SELECT does too.)
  return db
    .insert(networkListings)
    .select(sql`select c.id, o.network_id, c.organization_id, c.published_at,
      case when max(s.geos = '[]' or exists (select 1 from json_each(s.geos) where value = '-')) then '[]'
      else (select json_group_array(distinct g.value) from ${syndications} s2, json_each(s2.geos) g
        where s2.content_id = c.id and ${open("s2")}) end
    from ${contents} c
    join ${organizations} o on o.id = c.organization_id
    join ${syndications} s on s.content_id = c.id
    where ${where} and o.network_id is not null and c.status = 'available' and c.removed = 0 and c.published_at is not null
      and ${open("s")}
    group by c.id`);
}

/**
 * Re-derives the rows of these videos at `now` (after a write, or a window opening or closing).
 * Answers whether any of them was or is shown to the network (then its listings changed).
 */
export async function refreshNetworkListings(
  db: Db,
  contentIds: readonly number[],
  now: string,
): Promise<boolean> {
  let rows = 0;
  for (const ids of chunkRows([...new Set(contentIds)], 1, 500)) {
    const list = inList(sql.raw("c.id"), ids);
    const results = await db.batch([
      db.delete(networkListings).where(inList(networkListings.contentId, ids)),
      insertShown(db, list, now),
    ]);
    for (const result of results)
      rows += (result as { meta?: { changes?: number } }).meta?.changes ?? 0;
  }
  return rows > 0;
}

/** Re-derives every row of an organization's videos (it joined or left a network). */
export async function refreshOrganizationListings(
  db: Db,
  organizationId: number,
  now: string,
): Promise<void> {
  await runBatch(db, [
    db.delete(networkListings).where(eq(networkListings.organizationId, organizationId)),
    insertShown(db, sql`c.organization_id = ${organizationId}`, now),
  ]);
}

/**
 * Re-derives every row of every network at `now`, and moves every network's version on (their
 * cached listings change): for a database whose rows were written around the write paths (the
 * demo seed, a restore), once, by the cron's first run on it.
 */
export async function refreshAllNetworkListings(db: Db, now: string): Promise<void> {
  await runBatch(db, [
    db.delete(networkListings),
    insertShown(db, sql`true`, now),
    db.update(networks).set({ catalogVersion: sql`${networks.catalogVersion} + 1` }),
  ]);
}

/** Videos of the network's other members shown in the country (alpha-3; null: everywhere only), from the counters. */
export function networkVideoCountLookup(
  db: Db,
  networkId: number,
  exceptOrganizationId: number,
  country: string | null,
): Lookup<number> {
  return {
    queries: [
      db
        .select({ n: sql<number>`coalesce(sum(${networkListingCounts.videos}), 0)` })
        .from(networkListingCounts)
        .where(
          and(
            eq(networkListingCounts.networkId, networkId),
            sql`${networkListingCounts.organizationId} <> ${exceptOrganizationId}`,
            inList(networkListingCounts.country, country ? ["", country] : [""]),
          ),
        ),
    ],
    parse: ([rows]) => Number((rows as { n: number }[])[0]?.n ?? 0),
  };
}

export function networkVideoCount(
  db: Db,
  networkId: number,
  exceptOrganizationId: number,
  country: string | null,
): Promise<number> {
  return lookUp(db, networkVideoCountLookup(db, networkId, exceptOrganizationId, country));
}
