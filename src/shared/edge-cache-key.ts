// The keys of the edge cache (Workers Cache API): URLs under the service's own origin, in a
// path no route answers, naming everything an answer depends on. Built here once, for the
// middleware that caches reads and for the storage layer that forgets a file it rewrote.

const PREFIX = "/__edge-cache/v1";

/** `parts` name the caller and versions; `query` is already normalized (sorted) or empty. */
export function edgeCacheKey(
  origin: string,
  parts: readonly (string | number)[],
  pathname: string,
  query: string,
): string {
  const scope = parts.map((p) => encodeURIComponent(String(p))).join("/");
  return `${origin}${PREFIX}/${scope}${pathname}${query ? `?${query}` : ""}`;
}

/** The key of a public stored object (a feed file) requested at its path without a query. */
export function publicObjectCacheKey(origin: string, objectKey: string): string {
  return edgeCacheKey(origin, ["public"], `/${objectKey}`, "");
}
