// After a write that can change feed files: rebuild the organization's dirty feeds in
// waitUntil (the response does not wait). If that fails, the feeds stay dirty and the cron
// rebuilds them.
import type { Context } from "hono";
import { writeState } from "../db/cron-state";
import { rebuildDirtyFeeds, type PublishDeps } from "../domain/feed-publisher";
import type { AppEnv } from "../http/context";
import { origins } from "./catalog-context";

/** The cron has no request: it writes URLs with PUBLIC_BASE_URL, else the origin last seen here. */
export const ORIGIN_STATE = "public_origin";

export function publishDeps(c: Context<AppEnv>): PublishDeps {
  return {
    db: c.get("db"),
    bucket: c.env.MEDIA,
    origins: origins(c),
    now: new Date(),
    maxVideos: c.get("config").feedMaxVideos,
  };
}

export function rebuildFeedsAfterWrite(c: Context<AppEnv>, organizationId: number): void {
  const deps = publishDeps(c);
  const config = c.get("config");
  const work = (async () => {
    if (!config.publicBaseUrl) await writeState(deps.db, ORIGIN_STATE, deps.origins.baseUrl);
    const stats = await rebuildDirtyFeeds(deps, config.feedCronBudget, organizationId);
    console.log(JSON.stringify({ msg: "feeds rebuilt after write", organization_id: organizationId, ...stats }));
  })().catch((err) => {
    console.error(JSON.stringify({ level: "error", msg: "feed rebuild after write failed; the cron will retry", error: String(err) }));
  });
  c.executionCtx.waitUntil(work);
}
