// The console's library: all the organization's content with its status (uploading, available,
// rejected with the reason, expired), which E6 cannot list (published videos only). Keyset
// paging: the cursor is the last row's (createdAt, id), so any page reads only its own rows.
import { findLabels, labelKey, listableCount, type ContentScope } from "../../db/catalog";
import { listLabelNames, listLibrary, type LibraryKey } from "../../db/library";
import type { ContentStatus, LabelKind } from "../../db/schema";
import { syndicationsOf } from "../../db/syndications";
import { invalid } from "../../shared/errors";
import { toContentObject } from "../content/content";
import type { Deps } from "../deps";

export interface LibraryParams {
  contentKey?: string;
  status?: ContentStatus;
  search?: string;
  category?: string;
  tag?: string;
  event?: string;
  cursor?: string;
  limit: number;
}

const encodeCursor = (key: LibraryKey) => btoa(`${key.createdAt}|${key.id}`).replace(/=+$/, "");

function decodeCursor(cursor: string): LibraryKey {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    throw invalid("cursor: not a cursor this listing returned");
  }
  const match = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|(\d{1,15})$/.exec(text);
  if (!match) throw invalid("cursor: not a cursor this listing returned");
  return { createdAt: match[1]!, id: Number(match[2]) };
}

export async function libraryPage(deps: Pick<Deps, "db" | "origins">, scope: ContentScope, params: LibraryParams) {
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
    return { ids: group.map((l) => l.id), walk: carrying > 0 && carrying * carrying > params.limit * total };
  });
  const rows = await listLibrary(deps.db, scope, {
    contentKey: params.contentKey,
    status: params.status,
    search: params.search,
    labelGroups,
    after: params.cursor === undefined ? undefined : decodeCursor(params.cursor),
    // One more than asked tells whether another page follows.
    limit: params.limit + 1,
  });
  const page = rows.slice(0, params.limit);
  const last = page.at(-1);
  // The page's windows in one query.
  const windows = await syndicationsOf(deps.db, page.map((c) => c.id));
  return {
    contents: page.map((c) => ({
      ...toContentObject(c, deps.origins),
      width: c.width,
      height: c.height,
      serviceCategories: c.serviceCategories,
      syndications: (windows.get(c.id) ?? []).map((w) => ({ name: w.name, startTime: w.startTime, stopTime: w.stopTime, geos: w.geos })),
    })),
    nextCursor: rows.length > params.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/** The names the organization (or the caller's sub-organization) uses, as choices for filters and forms. */
export async function labelNames(deps: Pick<Deps, "db">, scope: ContentScope) {
  const byKind: Record<"categories" | "tags" | "events", { name: string; videos: number }[]> = { categories: [], tags: [], events: [] };
  const plural = { category: "categories", tag: "tags", event: "events" } as const;
  for (const l of await listLabelNames(deps.db, scope)) byKind[plural[l.kind]].push({ name: l.name, videos: l.videos });
  return byKind;
}
