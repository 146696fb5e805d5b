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
