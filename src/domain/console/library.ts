// The console's library: all the organization's content with its status (uploading, available,
// rejected with the reason, expired), which E6 cannot list (published videos only), with each
// one's lifetime plays. Keyset paging in the chosen order: the cursor is the last row's (sort
// value, id), so any page reads only its own rows.

import { captionSettingsOf } from "../../db/captions";
import { type ContentScope, findLabels, labelKey, listableCount } from "../../db/catalog";
import { type LibraryKey, listLabelNames, listLibrary } from "../../db/library";
import type { ContentStatus, LabelKind } from "../../db/schema";
import { type ShardedOrganization, statsDbOf } from "../../db/stats/shards";
import { lifetimePlays } from "../../db/stats/totals";
import { syndicationsOf } from "../../db/syndications";
import { base64url } from "../../shared/crypto";
import { invalid } from "../../shared/errors";
import type { LibrarySort } from "../../shared/vocabulary";
import { type Spoken, spokenPlaces } from "../captions/spoken";
import { toContentObject } from "../content/content";
import type { Deps } from "../deps";

export interface LibraryParams {
  contentKey?: string;
  status?: ContentStatus;
  search?: string;
  category?: string;
  tag?: string;
  event?: string;
  sort: LibrarySort;
  order?: "asc" | "desc";
  cursor?: string;
  limit: number;
}

/** Titles A to Z; the newest, longest and latest published first. */
const descendingByDefault = (sort: LibrarySort) => sort !== "title";

/** The last row's place in its order: [sort, direction, value, id], base64url JSON. */
export const encodeCursor = (sort: LibrarySort, descending: boolean, key: LibraryKey) =>
  base64url(
    new TextEncoder().encode(
      JSON.stringify([sort, descending ? "desc" : "asc", key.value, key.id]),
    ),
  );

export function decodeCursor(cursor: string, sort: LibrarySort, descending: boolean): LibraryKey {
  const wrong = () => invalid("cursor: not a cursor this listing returned for this sort and order");
  let parsed: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    parsed = JSON.parse(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
        Uint8Array.from(binary, (ch) => ch.charCodeAt(0)),
      ),
    );
  } catch {
    throw wrong();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw wrong();
  const [s, direction, value, id] = parsed as unknown[];
  if (s !== sort || direction !== (descending ? "desc" : "asc")) throw wrong();
  if (!(typeof value === "string" || typeof value === "number") || !Number.isSafeInteger(id))
    throw wrong();
  return { value, id: id as number };
}

export async function libraryPage(
  deps: Pick<Deps, "db" | "origins">,
  scope: ContentScope,
  params: LibraryParams,
  org: ShardedOrganization,
) {
  const names = (["category", "tag", "event"] as const)
    .filter((kind) => params[kind] !== undefined)
    .map((kind) => ({ kind: kind as LabelKind, name: params[kind]! }));
  const found = await findLabels(deps.db, [scope.organizationId], names);
  const groups = names.map((n) => found.get(labelKey(n.kind, n.name)) ?? []);
  // Walking the listing index finds a page of a name carried by a share s of the content after
  // about limit/s rows; reading the name's rows first costs its count. Walk when cheaper.
  const total = groups.length ? await listableCount(deps.db, scope) : 0;
  const labelGroups = groups.map((group) => {
    const carrying = group.reduce((n, l) => n + l.videos, 0);
    return {
      ids: group.map((l) => l.id),
      walk: carrying > 0 && carrying * carrying > params.limit * total,
    };
  });
  const descending =
    params.order === undefined ? descendingByDefault(params.sort) : params.order === "desc";
  // Search by what is said, when the organization turns it on (domain/captions/settings.ts).
  const spoken =
    params.search !== undefined &&
    (await captionSettingsOf(deps.db, scope.organizationId)).transcriptSearch;
  const rows = await listLibrary(deps.db, scope, {
    contentKey: params.contentKey,
    status: params.status,
    search: params.search,
    spoken,
    labelGroups,
    sort: params.sort,
    descending,
    after:
      params.cursor === undefined
        ? undefined
        : decodeCursor(params.cursor, params.sort, descending),
    // One more than asked tells whether another page follows.
    limit: params.limit + 1,
  });
  const page = rows.slice(0, params.limit);
  const last = page.at(-1);
  // The page's windows (catalog), plays (statistics) and where the search is said: one query each.
  const [windows, plays, places] = await Promise.all([
    syndicationsOf(
      deps.db,
      page.map((r) => r.content.id),
    ),
    lifetimePlays(
      statsDbOf(deps.db, org),
      scope.organizationId,
      page.map((r) => r.content.contentKey),
    ),
    spoken
      ? spokenPlaces(
          deps.db,
          scope,
          params.search!,
          page.map((r) => r.content.id),
        )
      : new Map<number, Spoken>(),
  ]);
  return {
    contents: page.map(({ content: c }) => ({
      ...toContentObject(c, deps.origins),
      width: c.width,
      height: c.height,
      serviceCategories: c.serviceCategories,
      plays: plays.get(c.contentKey) ?? 0,
      syndications: (windows.get(c.id) ?? []).map((w) => ({
        name: w.name,
        startTime: w.startTime,
        stopTime: w.stopTime,
        geos: w.geos,
      })),
      ...(places.has(c.id) && { spoken: places.get(c.id) }),
    })),
    nextCursor:
      rows.length > params.limit && last
        ? encodeCursor(params.sort, descending, { value: last.sortValue, id: last.content.id })
        : null,
  };
}

/** The names the organization (or the caller's sub-organization) uses, as choices for filters and forms. */
export async function labelNames(deps: Pick<Deps, "db">, scope: ContentScope) {
  const byKind: Record<"categories" | "tags" | "events", { name: string; videos: number }[]> = {
    categories: [],
    tags: [],
    events: [],
  };
  const plural = { category: "categories", tag: "tags", event: "events" } as const;
  for (const l of await listLabelNames(deps.db, scope))
    byKind[plural[l.kind]].push({ name: l.name, videos: l.videos });
  return byKind;
}
