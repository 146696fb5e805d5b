// E13 search_metadata (and get_video_by_cattag): the spec's behaviour paragraph.
//   and=1: the intersection of the criteria that were asked for (events only: only events).
//   and=0 (default): their union, and when tags were not asked for, every tagged video is
//   added to it (so no parameters at all returns all videos having tags).
// Within a criterion, tagAnd/categoryAnd/eventAnd/titleAnd choose all-of instead of any-of.
// Names are case-sensitive; titleString is matched as words or phrases, case-insensitively.
import { and, eq, or, sql, type SQL } from "drizzle-orm";
import { inList } from "../../db/client";
import { findLabelIds, ftsMatch, labelKey, LISTABLE } from "../../db/catalog";
import { contentLabels, contents, type LabelKind } from "../../db/schema";
import { ftsPhraseQuery } from "./filter-syntax";
import type { CatalogContext } from "./video-filter";
import { badRequest } from "../../http/errors";

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

const NOTHING = sql`0`;

/** "a,b%2Cc" → ["a", "b,c"]: comma-separated, each value percent-decoded. */
export function commaList(param: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((v) => {
      try {
        return decodeURIComponent(v.trim());
      } catch {
        throw badRequest(`${param}: malformed percent-encoding in "${v}"`);
      }
    })
    .filter((v) => v !== "");
}

export async function metadataSearchCondition(ctx: CatalogContext, q: MetadataSearch): Promise<SQL> {
  const { org, subOrg } = ctx.auth;
  const named: [LabelKind, string[] | undefined, boolean][] = [
    ["tag", q.tags, q.tagAnd],
    ["category", q.categories, q.categoryAnd],
    ["event", q.events, q.eventAnd],
  ];
  const ids = await findLabelIds(
    ctx.db,
    [org.id],
    named.filter(([, names]) => names?.length).map(([kind, names]) => ({ kind, names: names! })),
  );

  const criteria: SQL[] = [];
  for (const [kind, names, all] of named) {
    if (names === undefined) continue;
    const idsOf = (name: string) => ids.get(labelKey(kind, name)) ?? [];
    const hasAny = (labelIds: number[]) =>
      labelIds.length === 0
        ? NOTHING
        : sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${inList(contentLabels.labelId, labelIds)})`;
    if (names.length === 0) criteria.push(NOTHING);
    else criteria.push(all ? and(...names.map((n) => hasAny(idsOf(n))))! : hasAny(names.flatMap(idsOf)));
  }
  if (q.titles !== undefined) {
    const phrases = q.titles.map(ftsPhraseQuery).filter((p): p is string => p !== null);
    if (phrases.length === 0) criteria.push(NOTHING);
    else criteria.push(q.titleAnd ? and(...phrases.map(ftsMatch))! : ftsMatch(phrases.join(" OR ")));
  }

  const tagged = sql`${contents.tags} <> '[]'`;
  let matched: SQL;
  if (q.and) matched = criteria.length ? and(...criteria)! : tagged;
  else matched = or(...criteria, ...(q.tags === undefined ? [tagged] : []))!;

  const scope = and(eq(contents.organizationId, org.id), subOrg ? eq(contents.subOrganizationId, subOrg.id) : undefined)!;
  return and(LISTABLE, scope, matched)!;
}
