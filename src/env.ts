// Bindings and variables of the worker (wrangler.toml, .dev.vars, secrets). A leaf: the shapes
// of its bindings are in shared/bindings.ts, so every layer may read it.
import type {
  LiveStreams,
  MediaTransformsBinding,
  RenditionsQueueMessage,
} from "./shared/bindings";
export interface Env {
  /** The catalog database (video-catalog). */
  DB: D1Database;
  /**
   * The statistics database (video-catalog-stats): rollups, totals, ingestion bookkeeping. Shard
   * 0; STATS_DB_1 … STATS_DB_n are further shards (src/db/stats/shards.ts).
   */
  STATS_DB: D1Database;
  STATS_DB_1?: D1Database;
  /** Producer of the player event queue (video-catalog-events), consumed by src/queues/events.ts. */
  EVENTS_QUEUE: Queue<unknown>;
  MEDIA: R2Bucket;
  RATE_LIMITS: KVNamespace;
  /** Producer of the feed-rebuilds queue (messages: domain/deps.ts FeedRebuildRequest). */
  FEED_REBUILDS: Queue;
  /** Static assets (dist/public): the API reference and the player SDK bundle. */
  ASSETS?: Fetcher;
  ADMIN_TOKEN?: string;
  SIGNING_SECRET?: string;
  CHUNK_SIZE?: string;
  FEED_MAX_VIDEOS?: string;
  FEED_WORK_MS?: string;
  FEED_WORK_ROWS?: string;
  FEED_RECONCILE_BATCH?: string;
  FEED_PATCH_DELAY_SECONDS?: string;
  UPLOAD_URL_TTL_SECONDS?: string;
  UPLOAD_GRACE_SECONDS?: string;
  PUBLIC_BASE_URL?: string;
  STATIC_URL?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  R2_ACCOUNT_ID?: string;
  R2_BUCKET_NAME?: string;
  AUTH_FAILURES_PER_MINUTE?: string;
  CREDENTIAL_CACHE_SECONDS?: string;
  EDGE_STALE_SECONDS?: string;
  SEARCH_RANK_CANDIDATES?: string;
  PUBLIC_READS_PER_IP_PER_MINUTE?: string;
  EVENTS_PER_IP_PER_MINUTE?: string;
  DIMENSION_VALUES_PER_DAY?: string;
  VIEWER_IDS_PER_IP_PER_DAY?: string;
  EVENTS_PER_ORG_PER_MINUTE?: string;
  NEW_VIEWERS_PER_ORG_PER_DAY?: string;
  /** Producer of the webhook delivery queue (wrangler.toml [[queues.producers]]). */
  WEBHOOK_QUEUE?: Queue;
  /** "true" in local development and tests only: webhook endpoints on loopback are accepted. */
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  /** How old an ingested statistics event may be, in days (default 7). */
  EVENTS_MAX_AGE_DAYS?: string;
  /** How long viewer-level rows are kept, in months (default 13); the cron purges older ones. */
  VIEWER_ROWS_RETENTION_MONTHS?: string;
  /** "0" silences the per-request JSON log line (load tests); default "1". */
  LOG_REQUESTS?: string;
  /** When set, every plan's per-minute request limit (local load tests); default: the plan's. */
  RATE_LIMIT_PER_MINUTE?: string;
  /** HLS segment target duration in seconds (default 6). */
  HLS_SEGMENT_SECONDS?: string;
  /** Production: Cloudflare's Media Transformations binding (wrangler [media]); thumbnails from the video. */
  MEDIA_TRANSFORMS?: MediaTransformsBinding;
  /** Tests: the local ffmpeg frame service as a service binding (scripts/lib/frame-service.mjs). */
  FRAMES?: Fetcher;
  /** One Durable Object per live stream (src/durable/live-stream.ts), named by its content key. */
  LIVE_STREAMS: LiveStreams;
  LIVE_DVR_SECONDS?: string;
  LIVE_TIMEOUT_SECONDS?: string;
  LIVE_SEGMENT_MAX_BYTES?: string;
  /** npm run dev: where the local ffmpeg frame service listens. */
  FRAME_SERVICE_URL?: string;
  /** Producer of the renditions queue (video-catalog-renditions): one message per chunk job, and per live recording to remux. */
  RENDITIONS_QUEUE?: Queue<RenditionsQueueMessage>;
  /** Production: the transcoder Container's Durable Object namespace (wrangler [[containers]]). */
  TRANSCODER_CONTAINER?: DurableObjectNamespace;
  /** "true" once the Container's image is pushed (production): jobs go to it. */
  TRANSCODER_CONTAINERS_ENABLED?: string;
  /** Tests: the transcoder program as a service binding (containers/transcoder/transcoder.mjs). */
  TRANSCODER?: Fetcher;
  /** npm run dev: where the local transcoder listens. */
  TRANSCODER_URL?: string;
  /** Seconds of video per rendition job (default 120). */
  RENDITION_CHUNK_SECONDS?: string;
  /** Passkeys' relying party id (default: PUBLIC_BASE_URL's host). */
  WEBAUTHN_RP_ID?: string;
  /** Cloudflare Access single sign-on: the team's URL (the JWT's issuer) and the application's AUD tag. */
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  /** Where the team's signing keys are (default: <ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs); tests point it at a local JWKS. */
  ACCESS_CERTS_URL?: string;
  /** Invitation emails: a send_email binding (wrangler [[send_email]]) and its sender. */
  INVITE_MAIL?: SendEmail;
  INVITE_MAIL_FROM?: string;
}
