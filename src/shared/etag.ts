// Entity-tag comparison for If-None-Match (RFC 9110 §13.1.2), the one implementation used by
// computed responses (src/http/conditional.ts) and stored objects (src/storage/objects.ts).

/** `*`, or any listed tag equal to ours with the weak comparison (`W/` ignored). */
export function etagMatches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const ours = etag.replace(/^W\//, "");
  return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some(
    (tag) => tag.replace(/^W\//, "") === ours,
  );
}

/**
 * If-Range (RFC 9110 §13.1.5) holds: absent, a strong ETag equal to ours (the strong comparison:
 * a weak tag never holds; without an ETag of ours, no tag does), or a date exactly our Last-Modified (when we have one). When it does
 * not hold, the Range is ignored and the whole representation is sent.
 */
export function ifRangeHolds(
  ifRange: string | null | undefined,
  etag: string | null,
  lastModifiedMs: number | null = null,
): boolean {
  if (ifRange === null || ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"')) return etag !== null && !etag.startsWith("W/") && value === etag;
  if (value.startsWith("W/") || lastModifiedMs === null) return false;
  return Date.parse(value) === Math.floor(lastModifiedMs / 1000) * 1000;
}
