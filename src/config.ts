// Configuration read from the worker's variables, validated once per isolate.
import { z } from "zod";
import type { Env } from "./env";

/** R2 multipart rules: every part but the last at least 5 MiB, at most 5 GiB, at most 10,000 parts. */
export const R2_MIN_PART_SIZE = 5 * 1024 * 1024;
export const R2_MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
export const R2_MAX_PARTS = 10_000;

const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);

const configSchema = z.object({
  CHUNK_SIZE: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(
        R2_MIN_PART_SIZE,
        `CHUNK_SIZE must be at least ${R2_MIN_PART_SIZE} bytes (5 MiB, R2's minimum part size)`,
      )
      .max(R2_MAX_PART_SIZE, `CHUNK_SIZE must be at most ${R2_MAX_PART_SIZE} bytes (5 GiB)`)
      .default(100_000_000),
  ),
  RENDITION_CHUNK_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(6, "RENDITION_CHUNK_SECONDS must be 6 to 600")
      .max(600, "RENDITION_CHUNK_SECONDS must be 6 to 600")
      .default(120),
  ),
  HLS_SEGMENT_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(1, "HLS_SEGMENT_SECONDS must be 1 to 30")
      .max(30, "HLS_SEGMENT_SECONDS must be 1 to 30")
      .default(6),
  ),
  FEED_MAX_VIDEOS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(10_000).default(1000),
  ),
  FEED_WORK_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(600_000).default(20_000),
  ),
  FEED_WORK_ROWS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000_000).default(1_000_000),
  ),
  FEED_RECONCILE_BATCH: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(1000).default(25),
  ),
  FEED_PATCH_DELAY_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(0, "FEED_PATCH_DELAY_SECONDS must be 0 to 300")
      .max(300, "FEED_PATCH_DELAY_SECONDS must be 0 to 300")
      .default(10),
  ),
  CREDENTIAL_CACHE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(300).default(30),
  ),
  SEARCH_RANK_CANDIDATES: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(1, "SEARCH_RANK_CANDIDATES must be 1 to 1000000")
      .max(1_000_000, "SEARCH_RANK_CANDIDATES must be 1 to 1000000")
      .default(1000),
  ),
  EDGE_STALE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(0, "EDGE_STALE_SECONDS must be 0 to 60")
      .max(60, "EDGE_STALE_SECONDS must be 0 to 60")
      .default(5),
  ),
  AUTH_FAILURES_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000).default(30),
  ),
  PUBLIC_READS_PER_IP_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(10_000_000).default(600),
  ),
  EVENTS_PER_IP_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(10_000_000).default(1200),
  ),
  DIMENSION_VALUES_PER_DAY: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(10_000_000).default(1000),
  ),
  VIEWER_IDS_PER_IP_PER_DAY: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000).default(20),
  ),
  EVENTS_PER_ORG_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000_000).optional(),
  ),
  NEW_VIEWERS_PER_ORG_PER_DAY: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000_000).optional(),
  ),
  EVENTS_MAX_AGE_DAYS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(3650).default(7),
  ),
  VIEWER_ROWS_RETENTION_MONTHS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(120).default(13),
  ),
  LOG_REQUESTS: z.preprocess(
    emptyAsUndefined,
    z.enum(["0", "1"], { error: "LOG_REQUESTS must be 0 or 1" }).default("1"),
  ),
  RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(100_000_000).optional(),
  ),
  LIVE_DVR_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(60).max(86400).default(7200),
  ),
  LIVE_TIMEOUT_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(5).max(3600).default(60),
  ),
  LIVE_SEGMENT_MAX_BYTES: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(100 * 1024 * 1024)
      .default(32 * 1024 * 1024),
  ),
  UPLOAD_GRACE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86400)
      .default(3600),
  ),
  UPLOAD_URL_TTL_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(60)
      .max(7 * 86400)
      .default(86400),
  ),
  // URLs written into responses and files come from here, never from a request's Host header.
  PUBLIC_BASE_URL: z.preprocess(
    emptyAsUndefined,
    z.url({
      protocol: /^https?$/,
      error:
        "PUBLIC_BASE_URL must be set to the service's public origin, e.g. https://api.example.com (npm run dev sets it)",
    }),
  ),
  STATIC_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/, error: "STATIC_URL must be an http(s) origin" }).optional(),
  ),
  ADMIN_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(8).optional()),
  SIGNING_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(16, "SIGNING_SECRET must be at least 16 characters"),
  ),
  WEBHOOKS_ALLOW_LOOPBACK: z.preprocess(
    emptyAsUndefined,
    z
      .enum(["true", "false"], { error: "WEBHOOKS_ALLOW_LOOPBACK must be true or false" })
      .default("false"),
  ),
  WEBAUTHN_RP_ID: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[a-z0-9.-]{1,253}$/, "WEBAUTHN_RP_ID must be a host name (e.g. example.com)")
      .optional(),
  ),
  ACCESS_TEAM_DOMAIN: z.preprocess(
    emptyAsUndefined,
    z
      .url({
        protocol: /^https?$/,
        error: "ACCESS_TEAM_DOMAIN must be the team's URL, e.g. https://acme.cloudflareaccess.com",
      })
      .optional(),
  ),
  ACCESS_AUD: z.preprocess(emptyAsUndefined, z.string().max(200).optional()),
  ACCESS_CERTS_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/, error: "ACCESS_CERTS_URL must be an http(s) URL" }).optional(),
  ),
  INVITE_MAIL_FROM: z.preprocess(
    emptyAsUndefined,
    z.email({ error: "INVITE_MAIL_FROM must be an email address" }).optional(),
  ),
  R2_ACCESS_KEY_ID: z.preprocess(emptyAsUndefined, z.string().optional()),
  R2_SECRET_ACCESS_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
  R2_ACCOUNT_ID: z.preprocess(emptyAsUndefined, z.string().optional()),
  R2_BUCKET_NAME: z.preprocess(emptyAsUndefined, z.string().optional()),
});

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  accountId: string;
  bucket: string;
}

export interface Config {
  chunkSize: number;
  /** HLS segments are cut at the first keyframe at least this long after the segment's start. */
  hlsSegmentSeconds: number;
  /** Seconds of video per rendition job, cut on segment boundaries (domain/renditions.ts). */
  renditionChunkSeconds: number;
  /** Videos per feed file (json-feed pages reach past it). */
  feedMaxVideos: number;
  /**
   * Work one feed-rebuilds message (or one cron run) may do before leaving the rest to the next:
   * time in ms and D1 rows read. At least one feed is always built.
   */
  feedWork: { ms: number; rowsRead: number };
  /** Feeds the cron re-checks per run in id order, so every feed is reconciled periodically. */
  feedReconcileBatch: number;
  /**
   * How long a feed whose videos changed waits, from its first change, before their entries
   * are patched: the changes of that time make one pass (domain/feeds/patches.ts).
   */
  feedPatchDelaySeconds: number;
  uploadUrlTtlSeconds: number;
  /** After its signed URLs expired, how long an unfinished upload is kept before the cron aborts it. */
  uploadGraceSeconds: number;
  /** How long an isolate keeps a successful credential lookup (revocation takes effect within it). */
  credentialCacheSeconds: number;
  /**
   * How old (since it was computed) an earlier version's answer may be when it is served to a
   * public read while this isolate computes the new one (middleware/edge-cache.ts); 0: never.
   */
  edgeStaleSeconds: number;
  /**
   * E14/E15 rank at most this many of a search's matches, the newest; older matches follow them
   * newest first (a common word costs what this many matches cost, not what all of them do).
   */
  searchRankCandidates: number;
  /** Failed authentications a client (an IPv4 address, an IPv6 /64) may make per minute before further failures get 429. */
  authFailuresPerMinute: number;
  /**
   * Public reads the edge cache did not answer (E15, json-feed, feed files, stream misses, the
   * embed page, media/thumbnails/streams of keys that serve nothing) one client (an IPv4 address,
   * an IPv6 /64) may make per minute (middleware/public-reads.ts); past it, 429.
   */
  publicReadsPerIpPerMinute: number;
  /** Events one client (an IPv4 address, an IPv6 /64) may post per minute (batches past it get 429). */
  eventsPerIpPerMinute: number;
  /** New values a free-form dimension may get per organization and UTC day (then `other`). */
  dimensionValuesPerDay: number;
  /** Distinct fingerprints (and tputs) on viewer rows per client (IPv4 address, IPv6 /64) and UTC day (then `other`). */
  viewerIdsPerIpPerDay: number;
  /**
   * Replace the plans' ingestion ceilings per organization (domain/stats/ceilings.ts) when set:
   * events accepted per minute, new viewers per UTC day.
   */
  eventsPerOrgPerMinute?: number;
  newViewersPerOrgPerDay?: number;
  /** How old an ingested statistics event may be, in days. */
  eventsMaxAgeDays: number;
  /** How long viewer-level rows are kept, in months (the cron purges older days). */
  viewerRowsRetentionMonths: number;
  /** One JSON log line per request (LOG_REQUESTS=0 silences it; errors and other lines still log). */
  logRequests: boolean;
  /** Replaces every plan's per-minute request limit when set (local load tests). */
  rateLimitPerMinute?: number;
  /** Origin written into API URLs (signed upload URLs, media, the OpenAPI servers). */
  publicBaseUrl: string;
  /** Origin of the static feed files and thumbnails (default: publicBaseUrl). */
  staticUrl: string;
  adminToken?: string;
  signingSecret: string;
  /** Presigned S3 part URLs straight to R2 when all four are set; otherwise worker-signed URLs. */
  s3?: S3Credentials;
  /** Local development and tests only: webhook endpoints on loopback (http allowed) are accepted. */
  webhooksAllowLoopback: boolean;
  /** Live streams (docs/live.md): default DVR window, encoder silence that ends a stream, largest segment. */
  live: { dvrSeconds: number; timeoutSeconds: number; segmentMaxBytes: number };
  /**
   * Passkeys (WebAuthn): the relying party's id (WEBAUTHN_RP_ID, default PUBLIC_BASE_URL's host;
   * `localhost` when that is a loopback address, which WebAuthn refuses) and the origins a
   * ceremony may come from (PUBLIC_BASE_URL's, and its localhost twin in development).
   */
  passkeys: { rpId: string; origins: string[] };
  /** Cloudflare Access single sign-on, when both ACCESS_TEAM_DOMAIN and ACCESS_AUD are set. */
  access?: { issuer: string; audience: string; certsUrl: string };
  /** The sender of invitation emails (with the INVITE_MAIL binding). */
  inviteMailFrom?: string;
  /** PUBLIC_BASE_URL is a loopback address: local development (invitation links are printed). */
  development: boolean;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function passkeySettings(publicBaseUrl: string, rpId: string | undefined) {
  const base = new URL(publicBaseUrl);
  const loopback = LOOPBACK_HOSTS.has(base.hostname);
  const localhost = `${base.protocol}//localhost${base.port ? `:${base.port}` : ""}`;
  return {
    rpId: rpId ?? (loopback ? "localhost" : base.hostname),
    origins: loopback ? [...new Set([base.origin, localhost])] : [base.origin],
  };
}

export class ConfigError extends Error {}

const cache = new WeakMap<object, Config>();

export function loadConfig(env: Env): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      `service not configured: ${parsed.error.issues.map((i) => i.message).join("; ")}`,
    );
  }
  const v = parsed.data;
  const s3 =
    v.R2_ACCESS_KEY_ID && v.R2_SECRET_ACCESS_KEY && v.R2_ACCOUNT_ID && v.R2_BUCKET_NAME
      ? {
          accessKeyId: v.R2_ACCESS_KEY_ID,
          secretAccessKey: v.R2_SECRET_ACCESS_KEY,
          accountId: v.R2_ACCOUNT_ID,
          bucket: v.R2_BUCKET_NAME,
        }
      : undefined;
  const config: Config = {
    chunkSize: v.CHUNK_SIZE,
    hlsSegmentSeconds: v.HLS_SEGMENT_SECONDS,
    renditionChunkSeconds: v.RENDITION_CHUNK_SECONDS,
    feedMaxVideos: v.FEED_MAX_VIDEOS,
    feedWork: { ms: v.FEED_WORK_MS, rowsRead: v.FEED_WORK_ROWS },
    feedReconcileBatch: v.FEED_RECONCILE_BATCH,
    feedPatchDelaySeconds: v.FEED_PATCH_DELAY_SECONDS,
    uploadUrlTtlSeconds: v.UPLOAD_URL_TTL_SECONDS,
    uploadGraceSeconds: v.UPLOAD_GRACE_SECONDS,
    eventsMaxAgeDays: v.EVENTS_MAX_AGE_DAYS,
    viewerRowsRetentionMonths: v.VIEWER_ROWS_RETENTION_MONTHS,
    logRequests: v.LOG_REQUESTS === "1",
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: v.AUTH_FAILURES_PER_MINUTE,
    credentialCacheSeconds: v.CREDENTIAL_CACHE_SECONDS,
    edgeStaleSeconds: v.EDGE_STALE_SECONDS,
    searchRankCandidates: v.SEARCH_RANK_CANDIDATES,
    publicReadsPerIpPerMinute: v.PUBLIC_READS_PER_IP_PER_MINUTE,
    eventsPerIpPerMinute: v.EVENTS_PER_IP_PER_MINUTE,
    dimensionValuesPerDay: v.DIMENSION_VALUES_PER_DAY,
    viewerIdsPerIpPerDay: v.VIEWER_IDS_PER_IP_PER_DAY,
    eventsPerOrgPerMinute: v.EVENTS_PER_ORG_PER_MINUTE,
    newViewersPerOrgPerDay: v.NEW_VIEWERS_PER_ORG_PER_DAY,
    publicBaseUrl: v.PUBLIC_BASE_URL.replace(/\/+$/, ""),
    staticUrl: (v.STATIC_URL ?? v.PUBLIC_BASE_URL).replace(/\/+$/, ""),
    adminToken: v.ADMIN_TOKEN,
    signingSecret: v.SIGNING_SECRET,
    s3,
    webhooksAllowLoopback: v.WEBHOOKS_ALLOW_LOOPBACK === "true",
    live: {
      dvrSeconds: v.LIVE_DVR_SECONDS,
      timeoutSeconds: v.LIVE_TIMEOUT_SECONDS,
      segmentMaxBytes: v.LIVE_SEGMENT_MAX_BYTES,
    },
    passkeys: passkeySettings(v.PUBLIC_BASE_URL, v.WEBAUTHN_RP_ID),
    access:
      v.ACCESS_TEAM_DOMAIN && v.ACCESS_AUD
        ? {
            issuer: v.ACCESS_TEAM_DOMAIN.replace(/\/+$/, ""),
            audience: v.ACCESS_AUD,
            certsUrl:
              v.ACCESS_CERTS_URL ??
              `${v.ACCESS_TEAM_DOMAIN.replace(/\/+$/, "")}/cdn-cgi/access/certs`,
          }
        : undefined,
    inviteMailFrom: v.INVITE_MAIL_FROM,
    development: LOOPBACK_HOSTS.has(new URL(v.PUBLIC_BASE_URL).hostname),
  };
  cache.set(env, config);
  return config;
}
