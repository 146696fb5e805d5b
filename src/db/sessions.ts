// D1 read replication through the Sessions API. Reads that may be a little behind the primary
// (GET and HEAD) start on the nearest replica ("first-unconstrained"); everything else starts
// on the primary ("first-primary"), and D1 sends writes to the primary whatever the start. A
// client that has just written sends back the bookmark it was given (X-D1-Bookmark) and the
// session then starts at least that fresh: read-your-writes across requests and locations.

/** What D1 bookmarks look like (hex groups); anything else is ignored rather than sent to D1. */
const BOOKMARK = /^[0-9a-f]{1,40}(-[0-9a-f]{1,40}){0,7}$/i;

export function sessionConstraint(method: string, bookmark: string | undefined): string {
  if (bookmark && BOOKMARK.test(bookmark)) return bookmark;
  return method === "GET" || method === "HEAD" ? "first-unconstrained" : "first-primary";
}

export function openSession(
  db: D1Database,
  method: string,
  bookmark: string | undefined,
): D1DatabaseSession {
  return db.withSession(sessionConstraint(method, bookmark) as D1SessionConstraint);
}
