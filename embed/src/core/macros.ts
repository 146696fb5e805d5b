// The ad tag's macros, filled in by the player before it asks for the tag: the usual names
// ([CACHEBUSTING], [CONTENT_KEY], [PAGE_URL], [PLAYER_WIDTH], [PLAYER_HEIGHT], [TIMESTAMP]) and
// the IAB spelling [PAGEURL]. Values are URL-encoded; unknown macros stay as they are (the ad
// server's own, or vast-client's in tracking URLs).

/** The ad tag with its macros filled in (the usual names, and the IAB ones). */
export function expandMacros(
  tag: string,
  values: { contentKey: string; pageUrl: string; width: number; height: number },
): string {
  const map: Record<string, string> = {
    CACHEBUSTING: String(Math.floor(Math.random() * 1e8)).padStart(8, "0"),
    CONTENT_KEY: values.contentKey,
    PAGE_URL: values.pageUrl,
    PAGEURL: values.pageUrl,
    PLAYER_WIDTH: String(Math.round(values.width)),
    PLAYER_HEIGHT: String(Math.round(values.height)),
    TIMESTAMP: new Date().toISOString(),
  };
  return tag.replace(/\[([A-Z_]+)\]/g, (whole, name: string) =>
    name in map ? encodeURIComponent(map[name]!) : whole,
  );
}
