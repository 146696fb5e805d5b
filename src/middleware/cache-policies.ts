// How long each kind of read may be answered from the edge cache, and what its key holds
// besides the caller and the URL (middleware/edge-cache.ts). The staleness each gives is in
// docs/api.md ("Caching and freshness").
import type { Context } from "hono";
import type { output, ZodType } from "zod";
import { publicFeedVersion } from "../domain/feeds/feeds";
import { servableContent } from "../domain/files";
import { liveCaching } from "../domain/live/files";
import { playerAnswerVersions } from "../domain/player/answer";
import { streamCaching } from "../domain/streaming/caching";
import type { AppEnv } from "../http/context";
import { credentialDeps } from "../http/deps";
import { requestCountry } from "../http/request";
import { dayStart, isClosedDay } from "../shared/dates";
import { isolateNow } from "../shared/isolate-memory";
import { parseStreamFile, showsRecord } from "../shared/stream-files";
import {
  type Dependency,
  feedVersions,
  playerVersions,
  versionParts,
  versionsOf,
} from "../shared/versions";
import type { CachePolicy } from "./edge-cache";

/** Catalog reads: a write moves the version on, so entries may live long; windows move by the cron. */
export const CATALOG_TTL_SECONDS = 300;
/** Statistics that may still change (recent days: events arrive, up to EVENTS_MAX_AGE_DAYS late). */
export const RECENT_STATS_TTL_SECONDS = 60;
/** Statistics of days no event can reach any more (erasure moves the statistics version on). */
export const CLOSED_STATS_TTL_SECONDS = 3600;
/** Feed files: as long as their own max-age (they are republished within a minute of a change). */
export const FEED_FILE_TTL_SECONDS = 60;

/** A network listing shows the requester's country's videos: part of its key whatever the versions. */
const networkCountry = (c: Context<AppEnv>) => requestCountry(c.req.raw) ?? "-";

/** The key parts of the caller's versions of these dependencies (shared/versions.ts). */
const callerVersionParts = (c: Context<AppEnv>, dependsOn: Dependency[]) =>
  versionParts(versionsOf(c.get("auth")), dependsOn);

/**
 * What a read depends on, decided by the domain's own predicate from the query as its route
 * validates it (null: the query is refused, nothing to keep).
 */
export type DependsOn = (c: Context<AppEnv>) => readonly Dependency[] | null;

/** The domain predicate `decide`, applied to the query as `schema` validates it. */
export function dependsOnQuery<S extends ZodType>(
  schema: S,
  decide: (
    caller: AppEnv["Variables"]["auth"],
    query: output<S>,
    params: Record<string, string>,
  ) => readonly Dependency[],
): DependsOn {
  return (c) => {
    // As the route's validator reads the query: a repeated parameter is an array.
    const query = Object.fromEntries(
      Object.entries(c.req.queries()).map(([name, values]) => [
        name,
        values.length === 1 ? values[0] : values,
      ]),
    );
    const parsed = schema.safeParse(query);
    return parsed.success ? decide(c.get("auth"), parsed.data, c.req.param()) : null;
  };
}

/**
 * E6, E13, E14, E16: keyed by the versions the read depends on (the organization's catalog
 * version, and the network's, the statistics' when they show). Public reads may be answered
 * stale for EDGE_STALE_SECONDS after a write, unless the answer is built from viewer rows.
 */
export function catalogPolicy(dependsOn: DependsOn = () => ["catalog"]): CachePolicy {
  return (c) => {
    const dependencies = dependsOn(c);
    if (dependencies === null) return null;
    const showsNetwork = dependencies.includes("network");
    // Network listings depend on the network's catalog and on the requester's country.
    const country = showsNetwork ? [networkCountry(c)] : [];
    const network: Dependency[] = showsNetwork ? ["network"] : [];
    // Built from viewer rows: erasure must reach it at once, so never stale.
    if (dependencies.includes("statistics"))
      return {
        parts: [...callerVersionParts(c, ["catalog", "statistics", ...network]), ...country],
        ttlSeconds: CATALOG_TTL_SECONDS,
      };
    return {
      parts: [...callerVersionParts(c, ["catalog", ...network]), ...country],
      ttlSeconds: CATALOG_TTL_SECONDS,
      latestParts: showsNetwork ? [networkCountry(c)] : [],
    };
  };
}

/**
 * E7–E12: keyed by the statistics version, and by the catalog version when the answer reads
 * the catalog; short-lived while the range reaches days that can still receive events. `range`
 * names the date parameters; `dependsOn` (the domain's predicate, dependsOnQuery) says whether
 * the answer reads the catalog (video records, an E6 selection, live videos) or shows network
 * videos. A caller narrowed to a sub-organization always reads the catalog (which of the
 * organization's videos are its own).
 */
export function statsPolicy(
  range: { start: string; end: string },
  dependsOn: DependsOn = () => ["statistics"],
): CachePolicy {
  return (c) => {
    const end = c.req.query(range.end) ?? "";
    if (dayStart(end) === null || dayStart(c.req.query(range.start) ?? "") === null) return null; // a 400: nothing to keep
    const { subOrg } = c.get("auth");
    const closed = isClosedDay(end, isolateNow(), c.get("config").eventsMaxAgeDays);
    const declared = dependsOn(c);
    if (declared === null) return null; // a 400: nothing to keep
    const readsCatalog = subOrg !== null || declared.includes("catalog");
    const showsNetwork = declared.includes("network");
    const keyedBy: Dependency[] = [
      "statistics",
      ...(readsCatalog ? (["catalog"] as const) : []),
      ...(showsNetwork ? (["network"] as const) : []),
    ];
    return {
      parts: [...callerVersionParts(c, keyedBy), ...(showsNetwork ? [networkCountry(c)] : [])],
      ttlSeconds: closed ? CLOSED_STATS_TTL_SECONDS : RECENT_STATS_TTL_SECONDS,
    };
  };
}

/**
 * Public reads of a feed (E15, json-feed): keyed by the feed's own version, which moves only with
 * what can change them (its definition, a change to a video it holds before or after), looked up
 * like a credential.
 */
export const feedReadPolicy: CachePolicy = async (c) => {
  const feedId = c.req.query("feed");
  const version = feedId ? await publicFeedVersion(credentialDeps(c), feedId) : null;
  return version === null
    ? null
    : {
        parts: versionParts(feedVersions(feedId!, version), ["catalog"]),
        ttlSeconds: CATALOG_TTL_SECONDS,
        latestParts: [],
      };
};

/** Feed files (R2 objects): keyed by their URL, deleted by the publisher that rewrites one; a hit saves the R2 read. */
export const feedFilePolicy: CachePolicy = () => ({
  parts: [],
  ttlSeconds: FEED_FILE_TTL_SECONDS,
  deletedOnChange: true,
});

/**
 * Streams: keyed by their URL (the version names the file); init and segments for good, playlists
 * 300 s. A master or subtitle playlist also shows the record's subtitles: the record's revision
 * joins its key (the servable gate has just looked it up, kept in the isolate for 30 s).
 */
export const streamPolicy: CachePolicy = async (c) => {
  const file = parseStreamFile(c.req.param("file") ?? "");
  const content =
    file && showsRecord(file)
      ? await servableContent(c.get("db"), c.req.param("contentKey") ?? "", isolateNow())
      : null;
  return { parts: content ? [content.revision] : [], ttlSeconds: streamCaching(file).maxAge };
};

/**
 * The player's answer (GET /v2/player/{contentKey}): keyed by the video row's revision (E4 moves
 * it: its ad tag, its item placements) and the organization's player version (configurations,
 * the organization's ad tag, ecommerce items), looked up like a credential; the configuration
 * asked for is in the URL.
 */
export const playerPolicy: CachePolicy = async (c) => {
  const versions = await playerAnswerVersions(credentialDeps(c), c.req.param("contentKey") ?? "");
  return versions === null
    ? null
    : {
        parts: [
          versions.revision,
          ...versionParts(playerVersions(versions.organizationId, versions.playerVersion), [
            "player",
          ]),
        ],
        ttlSeconds: CATALOG_TTL_SECONDS,
      };
};

/**
 * Live streams (routes/live): keyed by their URL; the live playlist 1 s (the stream's Durable
 * Object is asked at most once a second per key and isolate, whatever the viewers), the
 * recording 300 s, segments for good.
 */
export const livePolicy: CachePolicy = (c) => ({
  parts: [],
  ttlSeconds: liveCaching(c.req.param("file") ?? "").maxAge,
});
