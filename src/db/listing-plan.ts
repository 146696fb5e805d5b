// How a listing (newest first, with its total) is read so that the rows it reads stay close to
// the rows it returns (issue 11, "cold reads"). Three ways to find a page:
//   walk        - read the base's listing index newest first and check each video with every
//                 filter's probe: costs about pageEnd / selectivity rows, good for common filters;
//   label walk  - read a names filter's labels' own listing index newest first (each listable
//                 link carries its video's published_at: content_labels_listing_idx), checking
//                 the others: costs about pageEnd / (the others' selectivity) rows per label,
//                 the page itself for a name alone, whatever the name's size;
//   candidates  - start from the most selective filter's index (its source), check the others,
//                 sort what is left: costs about twice that filter's size, good for rare ones;
// and ways to count that avoid reading every match where a counter knows it (listing counts,
// labels.videos, network listing counts) or an index holds it alone (listable name links, the
// text index). The plan is chosen from the filters' estimates (./listing-filters.ts).
import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { type ContentScope, LISTABLE, NEWEST_FIRST, type Page } from "./catalog";
import { allOf, type Db, inList } from "./client";
import { listableContentsByIds } from "./feed-sources";
import { ftsCount, ftsRowMatches } from "./fts";
import type { ListingFilter } from "./listing-filters";
import { type Content, contentLabels, contents, networkListings } from "./schema";
import { selectRows, selectRowsWithTotal } from "./table-rows";

/** What orders a listing's rows (newest publishedAt first, then highest id). */
export type Ordered = Pick<Content, "id" | "publishedAt">;
const ORDER_FIELDS = { id: contents.id, publishedAt: contents.publishedAt };

/** What a listing reads of each row: whole records, or only what orders them (a merge's first pass). */
export type ListingRead = "records" | "order";

/** Where a listing's videos come from: the organization's own listing, or its network's. */
export interface ListingBase {
  label: string;
  /** Listable videos in the base (exact, from counters). */
  size: number;
  /** A contents row belongs to the base (candidate plans and counts). */
  contains: SQL;
  /** The base's videos newest first that pass `conditions`. */
  walk(db: Db, conditions: SQL[], page: Page): Promise<Content[]>;
  /** The same rows as `walk`, only what orders them. */
  walkOrder(db: Db, conditions: SQL[], page: Page): Promise<Ordered[]>;
  /** The organization whose own listable name links count (null: a network or a sub-organization). */
  namesCountScope: number | null;
}

export interface ListingResult<Row = Content> {
  rows: Row[];
  count: number;
  /** The plan taken (tests and logs). */
  plan: string;
}

/** Own videos of an organization or sub-organization: the listing index, the listing counter. */
export function ownBase(scope: ContentScope, size: number): ListingBase {
  const own = and(
    eq(contents.organizationId, scope.organizationId),
    scope.subOrganizationId === null
      ? undefined
      : eq(contents.subOrganizationId, scope.subOrganizationId),
  )!;
  // `+column` keeps SQLite from starting at the listing index when a filter's ids should lead.
  const contains = and(
    LISTABLE,
    sql`+${contents.organizationId} = ${scope.organizationId}`,
    scope.subOrganizationId === null
      ? undefined
      : sql`+${contents.subOrganizationId} = ${scope.subOrganizationId}`,
  )!;
  const where = (conditions: SQL[]) => allOf([LISTABLE, own, ...conditions]);
  return {
    label: scope.subOrganizationId === null ? "own" : "sub-organization",
    size,
    contains,
    walk: (db, conditions, page) =>
      selectRows(
        db,
        contents,
        db
          .select()
          .from(contents)
          .where(where(conditions))
          .orderBy(...NEWEST_FIRST)
          .limit(page.limit)
          .offset(page.offset),
      ),
    walkOrder: (db, conditions, page) =>
      db
        .select(ORDER_FIELDS)
        .from(contents)
        .where(where(conditions))
        .orderBy(...NEWEST_FIRST)
        .limit(page.limit)
        .offset(page.offset),
    namesCountScope: scope.subOrganizationId === null ? scope.organizationId : null,
  };
}

/** A network listing row is shown in the country (alpha-3; null: unknown, only windows open everywhere). */
export function shownIn(country: string | null): SQL {
  const everywhere = sql`${networkListings.geos} = '[]'`;
  return country
    ? sql`(${everywhere} or instr(${networkListings.geos}, ${JSON.stringify(country)}) > 0)`
    : everywhere;
}

/** The other members' videos shown now in the country: the network listing table, its counters. */
export function peersBase(
  network: { networkId: number; organizationId: number; country: string | null },
  size: number,
): ListingBase {
  const visible = and(
    eq(networkListings.networkId, network.networkId),
    sql`${networkListings.organizationId} <> ${network.organizationId}`,
    shownIn(network.country),
  )!;
  // The network's videos are only ever listed merged with the organization's own (listBases),
  // which reads order keys: whole records are read by id afterwards.
  const walkOrder = (db: Db, conditions: SQL[], page: Page) =>
    db
      .select(ORDER_FIELDS)
      .from(networkListings)
      .innerJoin(contents, eq(contents.id, networkListings.contentId))
      .where(allOf([visible, LISTABLE, ...conditions]))
      .orderBy(desc(networkListings.publishedAt), desc(networkListings.contentId))
      .limit(page.limit)
      .offset(page.offset);
  return {
    label: "network",
    size,
    contains: and(
      LISTABLE,
      sql`exists (select 1 from ${networkListings} where ${networkListings.contentId} = ${contents.id} and ${visible})`,
    )!,
    walk: async (db, conditions, page) =>
      recordsInOrder(
        db,
        (await walkOrder(db, conditions, page)).map((r) => r.id),
      ),
    walkOrder,
    namesCountScope: null,
  };
}

// ---------------------------------------------------------------------------------------------
// Costs (in D1 rows read), from the filters' estimates

/** A probe that re-expands a prefix costs time at every row: count it as this many rows. */
const SLOW_PROBE_FACTOR = 20;

function walkCost(base: ListingBase, filters: readonly ListingFilter[], pageEnd: number): number {
  if (base.size === 0) return 0;
  const selectivity = filters.reduce((p, f) => p * Math.min(1, f.estimate / base.size), 1);
  const rows = selectivity === 0 ? base.size : Math.min(base.size, pageEnd / selectivity);
  return filters.some((f) => f.slowProbe) ? rows * SLOW_PROBE_FACTOR : rows;
}

/** The filter to start from: the smallest that has an index. */
function leader(filters: readonly ListingFilter[]): ListingFilter | null {
  return filters
    .filter((f) => f.source !== null)
    .reduce<ListingFilter | null>(
      (best, f) => (!best || f.estimate < best.estimate ? f : best),
      null,
    );
}

const candidatesCost = (f: ListingFilter | null) => (f ? 2 * f.estimate : Infinity);

type NamesFilter = Extract<ListingFilter, { kind: "names" }>;

/**
 * The names filter a label walk starts from, and its cost in rows: for an organization's own
 * listing (its labels' links are its videos; a sub-organization's or a network's are not), the
 * names filter whose walk reads least. Each of its labels is walked until pageEnd videos pass
 * the other filters (or the label ends); a video read with its row (the others need it) costs
 * two rows, one checked on its links alone one.
 */
function labelWalkPlan(
  base: ListingBase,
  filters: readonly ListingFilter[],
  pageEnd: number,
): { lead: NamesFilter; cost: number } | null {
  if (base.namesCountScope === null || base.size === 0) return null;
  let best: { lead: NamesFilter; cost: number } | null = null;
  for (const lead of filters) {
    if (lead.kind !== "names") continue;
    const others = filters.filter((f) => f !== lead);
    const selectivity = others.reduce((p, f) => p * Math.min(1, f.estimate / base.size), 1);
    const perRow = others.every((f) => f.kind === "names") ? 1 : 2;
    const cost = lead.labels.reduce(
      (n, l) =>
        n +
        perRow *
          Math.min(l.videos, selectivity === 0 ? l.videos : pageEnd / selectivity) *
          (others.some((f) => f.slowProbe) ? SLOW_PROBE_FACTOR : 1),
      0,
    );
    if (!best || cost < best.cost) best = { lead, cost };
  }
  return best;
}

/** The link being walked belongs to a video carrying one of these labels (its links' index). */
const linkedAlsoTo = (labelIds: readonly number[]) =>
  sql`exists (select 1 from ${contentLabels} as x where x.content_id = ${contentLabels.contentId} and ${inList(sql`x.label_id`, labelIds)})`;

/** The checks of the other filters in a label walk: names on the links' index, the rest on the row. */
const labelWalkChecks = (others: readonly ListingFilter[]) =>
  others.map((f) => (f.kind === "names" ? linkedAlsoTo(f.labels.map((l) => l.id)) : f.probe));

/** One label's walk with the page's records in the same read (a page's ids, then its rows, cost two round trips). */
function labelWalkRecords(
  db: Db,
  labelId: number,
  others: readonly ListingFilter[],
  page: Page,
): Promise<Content[]> {
  return selectRows(
    db,
    contents,
    db
      .select(getTableColumns(contents))
      .from(contentLabels)
      // CROSS JOIN: the links first, in the walk's order; each video's row by its id.
      .crossJoin(contents)
      .where(
        allOf([
          sql`${contents.id} = ${contentLabels.contentId}`,
          sql`${contentLabels.labelId} = ${sql.raw(String(Math.trunc(labelId)))} and ${contentLabels.listable} = 1`,
          ...labelWalkChecks(others),
        ]),
      )
      .orderBy(desc(contentLabels.publishedAt), desc(contentLabels.contentId))
      .limit(page.limit)
      .offset(page.offset),
  );
}

/**
 * A page of order keys from a label walk: each label's listable links newest first on
 * content_labels_listing_idx, checked against the other filters (names on the links' index,
 * the rest on the video's row), merged across the labels (a video carrying two of them once).
 */
async function labelWalkPage(
  db: Db,
  lead: NamesFilter,
  others: readonly ListingFilter[],
  page: Page,
): Promise<Ordered[]> {
  const pageEnd = page.offset + page.limit;
  const onLinks = others.every((f) => f.kind === "names");
  const checks = labelWalkChecks(others);
  const order = sql`order by ${contentLabels.publishedAt} desc, ${contentLabels.contentId} desc`;
  // The literal `listable = 1` lets SQLite prove the partial index applies; CROSS JOIN keeps the
  // links as the outer loop (the walk's order), each video's row read by its id.
  const walk = (labelId: number, limit: number, offset: number) =>
    sql`select ${contentLabels.contentId} as id, ${contentLabels.publishedAt} as published_at
      from ${contentLabels}${onLinks ? sql`` : sql` cross join ${contents} on ${contents.id} = ${contentLabels.contentId}`}
      where ${allOf([sql`${contentLabels.labelId} = ${sql.raw(String(Math.trunc(labelId)))} and ${contentLabels.listable} = 1`, ...checks])}
      ${order} limit ${limit} offset ${offset}`;
  const labels = lead.labels.map((l) => l.id);
  if (labels.length === 1) {
    const rows = await db.all<{ id: number; published_at: string | null }>(
      walk(labels[0]!, page.limit, page.offset),
    );
    return rows.map((r) => ({ id: r.id, publishedAt: r.published_at }));
  }
  // Each label's walk to the page's end, all in one statement (UNION ALL streams them: no
  // temporary table to dedupe and sort, which read each row three more times), merged here.
  const rows = await db.all<{ id: number; published_at: string | null }>(
    sql.join(
      labels.map((id) => sql`select * from (${walk(id, pageEnd, 0)})`),
      sql` union all `,
    ),
  );
  const merged = new Map<number, Ordered>();
  for (const r of rows) merged.set(r.id, { id: r.id, publishedAt: r.published_at });
  return [...merged.values()].sort(newerFirst).slice(page.offset, pageEnd);
}

interface CountPlan {
  cost: number;
  run: (db: Db) => Promise<number>;
}

/** The cheapest way to count the base's videos passing every filter, given what is known. */
function countPlan(base: ListingBase, filters: readonly ListingFilter[]): CountPlan {
  if (filters.length === 0) return { cost: 0, run: async () => base.size };
  const names = filters.filter(
    (f): f is Extract<ListingFilter, { kind: "names" }> => f.kind === "names",
  );
  if (base.namesCountScope !== null && names.length === filters.length) return namesCount(names);
  const f = filters[0]!;
  if (filters.length === 1 && f.kind === "text" && base.namesCountScope !== null) {
    return {
      cost: f.estimate,
      run: async (db) =>
        (await ftsCount(db, f.expression)) +
        (f.keys.length ? await keysOutsideText(db, base, f) : 0),
    };
  }
  const lead = leader(filters);
  if (!lead) return { cost: base.size, run: (db) => countWalk(db, base, filters) };
  return { cost: 2 * lead.estimate, run: (db) => countFrom(db, base, lead, filters) };
}

/**
 * Names only, over an organization's own listing: one label is its counter; several labels of
 * one group are the biggest label's counter plus the others' listable links outside it; several
 * groups walk the smallest group's listable links and check the others by index.
 */
function namesCount(filters: Extract<ListingFilter, { kind: "names" }>[]): CountPlan {
  const [first] = filters;
  if (filters.length === 1 && first!.labels.length === 1)
    return { cost: 1, run: async () => first!.labels[0]!.videos };
  if (filters.length === 1) {
    const labels = [...first!.labels].sort((a, b) => b.videos - a.videos);
    const [biggest, ...rest] = labels;
    const restIds = rest.map((l) => l.id);
    return {
      cost: rest.reduce((n, l) => n + l.videos, 0),
      run: async (db) => {
        const [row] = await db
          .select({ n: sql<number>`count(distinct ${contentLabels.contentId})` })
          .from(contentLabels)
          .where(
            and(
              sql`${contentLabels.listable} = 1 and ${inList(contentLabels.labelId, restIds)}`,
              sql`not exists (select 1 from ${contentLabels} as x where x.content_id = ${contentLabels.contentId} and x.label_id = ${biggest!.id})`,
            ),
          );
        return biggest!.videos + Number(row?.n ?? 0);
      },
    };
  }
  const smallest = filters.reduce((a, b) => (b.estimate < a.estimate ? b : a));
  const rest = filters.filter((f) => f !== smallest);
  // One label's links name each video once: no distinct (its temporary table read them twice).
  const videos =
    smallest.labels.length === 1
      ? sql<number>`count(*)`
      : sql<number>`count(distinct ${contentLabels.contentId})`;
  return {
    cost: smallest.estimate,
    run: async (db) => {
      const [row] = await db
        .select({ n: videos })
        .from(contentLabels)
        .where(
          allOf([
            sql`${contentLabels.listable} = 1 and ${inList(
              contentLabels.labelId,
              smallest.labels.map((l) => l.id),
            )}`,
            ...rest.map(
              (f) =>
                sql`exists (select 1 from ${contentLabels} as x where x.content_id = ${contentLabels.contentId} and ${inList(
                  sql`x.label_id`,
                  f.labels.map((l) => l.id),
                )})`,
            ),
          ]),
        );
      return Number(row?.n ?? 0);
    },
  };
}

async function keysOutsideText(
  db: Db,
  base: ListingBase,
  f: Extract<ListingFilter, { kind: "text" }>,
) {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contents)
    .where(
      // A video found by its key counts when it passes every group (f.probe), not by the text.
      and(
        inList(contents.contentKey, f.keys),
        base.contains,
        sql`not ${ftsRowMatches(f.terms)}`,
        f.probe,
      ),
    );
  return Number(row?.n ?? 0);
}

async function countFrom(
  db: Db,
  base: ListingBase,
  lead: ListingFilter,
  filters: readonly ListingFilter[],
) {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contents)
    .where(
      allOf([
        sql`${contents.id} in (${lead.source})`,
        base.contains,
        ...filters.filter((f) => f !== lead).map((f) => f.probe),
      ]),
    );
  return Number(row?.n ?? 0);
}

async function countWalk(db: Db, base: ListingBase, filters: readonly ListingFilter[]) {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contents)
    .where(allOf([base.contains, ...filters.map((f) => f.probe)]));
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------

/** The page from the leader's candidates, sorted, with the total in the same pass. */
async function candidatesPage(
  db: Db,
  base: ListingBase,
  lead: ListingFilter,
  filters: readonly ListingFilter[],
  page: Page,
  read: ListingRead,
) {
  const where = allOf([
    sql`${contents.id} in (${lead.source})`,
    base.contains,
    ...filters.filter((f) => f !== lead).map((f) => f.probe),
  ]);
  // `+published_at`: sort the candidates rather than walk the listing index.
  const order = [sql`+${contents.publishedAt} desc`, desc(contents.id)];
  const total = sql<number>`count(*) over ()`.as("total");
  const totalOf = (rows: { total: number }[]) => (rows[0] ? Number(rows[0].total) : null);
  if (read === "order") {
    const rows = await db
      .select({ row: ORDER_FIELDS, total })
      .from(contents)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset);
    return { rows: rows.map((r) => r.row), total: totalOf(rows) };
  }
  return selectRowsWithTotal(
    db,
    contents,
    db
      .select({ ...getTableColumns(contents), total })
      .from(contents)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
  );
}

/** One base's page (and total when asked), by the cheapest plan the estimates promise. */
export function listBase(
  db: Db,
  base: ListingBase,
  filters: readonly ListingFilter[],
  page: Page,
  withCount: boolean,
): Promise<ListingResult>;
export function listBase(
  db: Db,
  base: ListingBase,
  filters: readonly ListingFilter[],
  page: Page,
  withCount: boolean,
  read: "order",
): Promise<ListingResult<Ordered>>;
export async function listBase(
  db: Db,
  base: ListingBase,
  filters: readonly ListingFilter[],
  page: Page,
  withCount: boolean,
  read: ListingRead = "records",
): Promise<ListingResult<Content> | ListingResult<Ordered>> {
  const pageEnd = page.offset + page.limit;
  // Filters only narrow the base: a page starting past its size is empty, without reading the
  // rows OFFSET would skip.
  if (page.offset >= base.size) {
    return {
      rows: [],
      count: withCount ? await countPlan(base, filters).run(db) : 0,
      plan: `${base.label}: past the end`,
    };
  }
  const walk = walkCost(base, filters, pageEnd);
  const lead = leader(filters);
  const candidates = candidatesCost(lead);
  const counting = withCount ? countPlan(base, filters) : { cost: 0, run: async () => 0 };
  const labelWalk = labelWalkPlan(base, filters, pageEnd);
  if (labelWalk && labelWalk.cost + counting.cost < Math.min(walk + counting.cost, candidates)) {
    const others = filters.filter((f) => f !== labelWalk.lead);
    const [rows, count] = await Promise.all([
      read === "records" && labelWalk.lead.labels.length === 1
        ? labelWalkRecords(db, labelWalk.lead.labels[0]!.id, others, page)
        : labelWalkPage(db, labelWalk.lead, others, page).then((keys) =>
            read === "order"
              ? keys
              : recordsInOrder(
                  db,
                  keys.map((k) => k.id),
                ),
          ),
      counting.run(db),
    ]);
    return {
      rows,
      count,
      plan: `${base.label}: label walk of ${labelWalk.lead.label}${withCount ? ` + count (${counting.cost})` : ""}`,
    };
  }
  if (filters.length === 0 || walk + counting.cost <= candidates || !lead) {
    const probes = filters.map((f) => f.probe);
    const [rows, count] = await Promise.all([
      read === "records" ? base.walk(db, probes, page) : base.walkOrder(db, probes, page),
      counting.run(db),
    ]);
    return {
      rows,
      count,
      plan: `${base.label}: walk${withCount ? ` + count (${counting.cost})` : ""}`,
    };
  }
  const { rows, total } = await candidatesPage(db, base, lead, filters, page, read);
  const count = !withCount ? 0 : (total ?? (await countFrom(db, base, lead, filters)));
  return { rows, count, plan: `${base.label}: candidates from ${lead.label}` };
}

const newerFirst = (a: Ordered, b: Ordered) =>
  (b.publishedAt ?? "").localeCompare(a.publishedAt ?? "") || b.id - a.id;

/**
 * Own and network videos merged newest first (they never overlap), totals added. Each listing is
 * read up to the page's end as order keys only, then the page's records by id: whole records
 * would bring (page end) × 2 of them into the isolate to keep one page, and even on a first page
 * they made E16 slower than reading twice (docs/benchmarks.md).
 */
export async function listBases(
  db: Db,
  bases: { base: ListingBase; filters: readonly ListingFilter[] }[],
  page: Page,
  withCount: boolean,
): Promise<ListingResult> {
  if (bases.length === 1) return listBase(db, bases[0]!.base, bases[0]!.filters, page, withCount);
  const { ids, count, plan } = await listIds(
    db,
    bases,
    page.offset,
    page.offset + page.limit,
    withCount,
  );
  return { rows: ids ? await recordsInOrder(db, ids.slice(page.offset)) : [], count, plan };
}

export interface ListingIds {
  /** Null when the page asked for starts past the end (nothing was listed, only counted). */
  ids: number[] | null;
  count: number;
  plan: string;
}

/**
 * The ids of the first `upTo` videos of the bases merged newest first, and their total: what a
 * page from `from` on needs besides its records (domain/catalog/listing-ids.ts keeps them for
 * deeper pages).
 */
export async function listIds(
  db: Db,
  bases: { base: ListingBase; filters: readonly ListingFilter[] }[],
  from: number,
  upTo: number,
  withCount: boolean,
): Promise<ListingIds> {
  // Filters only narrow the bases: a page starting past their sizes is empty, without reading
  // the rows OFFSET would skip.
  if (from >= bases.reduce((n, b) => n + b.base.size, 0)) {
    const counts = withCount
      ? await Promise.all(bases.map((b) => countPlan(b.base, b.filters).run(db)))
      : [0];
    return { ids: null, count: counts.reduce((n, c) => n + c, 0), plan: "past the end" };
  }
  const all = { limit: upTo, offset: 0 };
  const parts = await Promise.all(
    bases.map((b) => listBase(db, b.base, b.filters, all, withCount, "order")),
  );
  const keys =
    parts.length === 1
      ? parts[0]!.rows
      : parts
          .flatMap((p) => p.rows)
          .sort(newerFirst)
          .slice(0, upTo);
  return {
    ids: keys.map((k) => k.id),
    count: parts.reduce((n, p) => n + p.count, 0),
    plan: parts.map((p) => p.plan).join("; "),
  };
}

/** The records of these ids, in this order (one no longer listable since is left out). */
export async function recordsInOrder(db: Db, ids: number[]): Promise<Content[]> {
  const byId = new Map((await listableContentsByIds(db, ids)).map((c) => [c.id, c]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
