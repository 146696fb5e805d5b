// Search (spec 4.4).
// E13 search_metadata (and get_video_by_cattag), the spec's behaviour paragraph:
//   and=1: the intersection of the criteria that were asked for (events only: only events).
//   and=0 (default): their union, and when tags were not asked for, every tagged video is
//   added to it (so no parameters at all returns all videos having tags).
// Within a criterion, tagAnd/categoryAnd/eventAnd/titleAnd choose all-of instead of any-of.
// Names are case-sensitive; titleString is matched as words or phrases, case-insensitively.
// E14 and E15: text search ranked by relevance within the organization's videos, then newest
// (a search with more than SEARCH_RANK_CANDIDATES matches: titles first, each part newest first:
// db/search.ts); at least 3 characters.

import type { SQL } from "drizzle-orm";
import type { Page } from "../../db/catalog";
import type { TextScope } from "../../db/fts";
import type { LabelKind } from "../../db/schema";
import {
  type MetadataCriterion,
  searchIds,
  searchMetadataFirstPage,
  searchMetadataIds,
  searchTextQuery,
} from "../../db/search";
import { syndicationsOf } from "../../db/syndications";
import { feedRowChecks } from "../../db/video-query";
import { excerpt, invalid, notFound } from "../../shared/errors";
import { feedVersions, readKey } from "../../shared/versions";
import { keptCaptionSettings } from "../captions/settings";
import { type Spoken, spokenMatches, spokenPlaces } from "../captions/spoken";
import type { Deps } from "../deps";
import { publicFeed } from "../feeds/feeds";
import { feedMembership } from "../feeds/membership";
import { type Caller, scopeOf } from "./caller";
import { catalogVersionsKeys, type KeptKeys, keptPage, sameKeys } from "./listing-ids";
import { feedSearchRecord, searchRecord } from "./records";

export const SEARCH_MIN_LENGTH = 3;

export interface MetadataSearch {
  tags?: string[];
  categories?: string[];
  events?: string[];
  titles?: string[];
  and: boolean;
  tagAnd: boolean;
  categoryAnd: boolean;
  eventAnd: boolean;
  titleAnd: boolean;
}

type ReadDeps = Pick<Deps, "db" | "origins" | "now" | "config" | "readsOwnWrites">;

/** Values one E13 parameter may list. */
export const METADATA_LIST_MAX = 100;

/** "a,b%2Cc" → ["a", "b,c"]: comma-separated, each value percent-decoded. */
export function commaList(param: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const raw = value.split(",");
  if (raw.length > METADATA_LIST_MAX)
    throw invalid(`${param}: at most ${METADATA_LIST_MAX} values, got ${raw.length}`);
  return raw
    .map((v) => {
      try {
        return decodeURIComponent(v.trim());
      } catch {
        throw invalid(`${param}: malformed percent-encoding in "${excerpt(v)}"`);
      }
    })
    .filter((v) => v !== "");
}

/** E13. */
export async function searchMetadata(
  deps: ReadDeps,
  caller: Caller,
  q: MetadataSearch,
  page: Page,
) {
  const named: [LabelKind, string[] | undefined, boolean][] = [
    ["tag", q.tags, q.tagAnd],
    ["category", q.categories, q.categoryAnd],
    ["event", q.events, q.eventAnd],
  ];
  const criteria: MetadataCriterion[] = [];
  for (const [kind, names, all] of named) {
    if (names === undefined) continue;
    // Given but empty (`privateTags=`): the criterion matches nothing.
    const refs = names.map((name) => ({ kind, name }));
    criteria.push({ kind: "names", groups: all ? refs.map((r) => [r]) : [refs] });
  }
  // Search by what is said (the organization's setting): titleString finds spoken words too.
  const spoken = (await spokenSearchOn(deps, caller.org.id)) && q.titles !== undefined;
  if (q.titles !== undefined)
    criteria.push({ kind: "titles", terms: q.titles, all: q.titleAnd, spoken });
  if (q.and && criteria.length === 0) criteria.push({ kind: "tagged" });
  if (!q.and && q.tags === undefined) criteria.push({ kind: "tagged" });

  const query = {
    ...scopeOf(caller),
    criteria,
    combine: q.and ? ("all" as const) : ("any" as const),
  };
  const read = async (_from: number, upTo: number) => ({
    ids: await searchMetadataIds(deps.db, query, upTo),
    count: 0,
    plan: "metadata",
  });
  // A first page not kept is read with its records (one round trip fewer), then kept.
  const firstPage = async () => ({
    rows: await searchMetadataFirstPage(deps.db, query, page.limit),
    count: 0,
    plan: "metadata",
  });
  const { rows } = await keptPage(
    deps,
    catalogVersionsKeys(caller, false),
    `metadata:${JSON.stringify(query)}`,
    page,
    read,
    firstPage,
  );
  const places =
    spoken && q.titles?.[0]
      ? await spokenPlaces(
          deps.db,
          query,
          q.titles[0],
          rows.map((r) => r.id),
          true,
        )
      : new Map<number, Spoken>();
  return rows.map((r) => withSpoken(searchRecord(r, deps.origins), places.get(r.id)));
}

/** Whether the organization's searches find videos by what is said in them (its setting). */
async function spokenSearchOn(deps: ReadDeps, organizationId: number): Promise<boolean> {
  const settings = await keptCaptionSettings(
    {
      db: deps.db,
      nowMs: deps.now.getTime(),
      credentialCacheMs: deps.config.credentialCacheSeconds * 1000,
    },
    organizationId,
  );
  return settings.transcriptSearch;
}

/** A record, with where the search's words are spoken in the video when they are. */
const withSpoken = <T>(record: T, spoken: Spoken | undefined) =>
  spoken ? { ...record, spoken } : record;

/** The search string as searched: trimmed, at least SEARCH_MIN_LENGTH characters. */
function searchedText(searchString: string): string {
  const trimmed = searchString.trim();
  if (trimmed.length < SEARCH_MIN_LENGTH)
    throw invalid(`searchString must be at least ${SEARCH_MIN_LENGTH} characters`);
  return trimmed;
}

/**
 * A text search's page of records, kept in the isolate (./listing-ids.ts) under `keys` and
 * read in the search's order when not kept.
 */
async function searchPage(
  deps: ReadDeps,
  keys: KeptKeys,
  query: string,
  text: string,
  scope: TextScope,
  where: () => Promise<SQL | undefined>,
  page: Page,
  spoken: boolean,
) {
  // The order depends on how many matches are ranked, a setting, and on the spoken-word search.
  const candidates = deps.config.searchRankCandidates;
  const { rows } = await keptPage(
    deps,
    keys,
    `${query}:${text}:r${candidates}:s${spoken ? 1 : 0}`,
    page,
    async (_from, upTo) => {
      const [fts, checks] = await Promise.all([searchTextQuery(deps.db, text), where()]);
      const ids = fts ? await searchIds(deps.db, scope, fts, checks, upTo, candidates) : [];
      // The videos whose words are spoken only follow those whose title or description holds them.
      if (spoken && ids.length < upTo) {
        const seen = new Set(ids);
        const said = await spokenMatches(deps.db, scope, text, checks, upTo);
        ids.push(...said.filter((id) => !seen.has(id)).slice(0, upTo - ids.length));
      }
      return { ids, count: 0, plan: "search" };
    },
  );
  const places = spoken
    ? await spokenPlaces(
        deps.db,
        scope,
        text,
        rows.map((r) => r.id),
      )
    : new Map<number, Spoken>();
  return { rows, places };
}

/** E14: the caller's videos. */
export async function searchVideoList(
  deps: ReadDeps,
  caller: Caller,
  searchString: string,
  page: Page,
) {
  const text = searchedText(searchString);
  const scope = scopeOf(caller);
  const { rows, places } = await searchPage(
    deps,
    catalogVersionsKeys(caller, false),
    `search:${scope.subOrganizationId ?? 0}`,
    text,
    scope,
    async () => undefined,
    page,
    await spokenSearchOn(deps, caller.org.id),
  );
  return rows.map((r) => withSpoken(searchRecord(r, deps.origins), places.get(r.id)));
}

/** E15: a feed's published videos (public: what players call). */
export async function searchFeed(deps: ReadDeps, feedId: string, searchString: string, page: Page) {
  const text = searchedText(searchString);
  const feed = await publicFeed(
    {
      ...deps,
      nowMs: deps.now.getTime(),
      credentialCacheMs: deps.config.credentialCacheSeconds * 1000,
    },
    feedId,
  );
  if (!feed) throw notFound(`feed ${feedId} does not exist`);
  // A sub-organization's feed ranks among that sub-organization's documents only. The feed's
  // version moves with its definition and with a change to a video it holds (before or after).
  const scope = { organizationId: feed.organizationId, subOrganizationId: feed.subOrganizationId };
  const where = () => feedRowChecks(deps.db, feedMembership(feed), deps.now.toISOString());
  const { rows, places } = await searchPage(
    deps,
    sameKeys(readKey(feedVersions(feed.id, feed.version), ["catalog"])),
    "feed-search",
    text,
    scope,
    where,
    page,
    await spokenSearchOn(deps, feed.organizationId),
  );
  const windows = await syndicationsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    withSpoken(feedSearchRecord(r, deps.origins, windows.get(r.id) ?? []), places.get(r.id)),
  );
}
