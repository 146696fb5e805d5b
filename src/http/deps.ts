// The domain's dependencies for one request.
import type { Context } from "hono";
import type { CredentialDeps } from "../domain/authentication";
import { speechEngineOf } from "../domain/captions/generate";
import { frameSourceOf } from "../domain/content/frame-thumbnails";
import type { Deps } from "../domain/deps";
import { renditionQueueOf } from "../domain/renditions";
import { isolateNow } from "../shared/isolate-memory";
import type { AppEnv } from "./context";
import { BOOKMARK_HEADER } from "./request";

export function requestDeps(c: Context<AppEnv>): Deps {
  return {
    db: c.get("db"),
    bucket: c.env.MEDIA,
    feedRebuilds: c.env.FEED_REBUILDS,
    config: c.get("config"),
    origins: c.get("origins"),
    now: new Date(),
    defer: (work) => c.executionCtx.waitUntil(work),
    webhookQueue: c.env.WEBHOOK_QUEUE,
    frames: frameSourceOf(c.env),
    renditionJobs: renditionQueueOf(c.env),
    liveStreams: c.env.LIVE_STREAMS,
    speech: speechEngineOf(c.env),
    readsOwnWrites: c.req.header(BOOKMARK_HEADER) !== undefined,
  };
}

/** What the credential checks of a request need. */
export function credentialDeps(c: Context<AppEnv>): CredentialDeps {
  return {
    db: c.get("db"),
    nowMs: isolateNow(),
    credentialCacheMs: c.get("config").credentialCacheSeconds * 1000,
  };
}

/** The organization (and sub-organization) a request acts for. */
export function requestScope(c: Context<AppEnv>) {
  const { org, subOrg } = c.get("auth");
  return { organizationId: org.id, subOrganizationId: subOrg?.id ?? null };
}
