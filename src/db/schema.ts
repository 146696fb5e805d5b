// D1 schema of the catalog (Drizzle). drizzle-kit generates the table migrations from this file;
// the FTS5 index and the counter triggers are hand-written migrations (docs/migrations.md).
// Timestamps are ISO 8601 UTC strings ("2026-11-21T22:40:00.000Z"): they sort lexicographically.
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

import type { KeptCaption } from "../shared/captions";
import {
  CONTENT_STATUSES,
  type Entitlement,
  LABEL_KINDS,
  LIVE_STATES,
  PLANS,
  STATS_MOVE_PHASES,
  TOKEN_KINDS,
  TOKEN_SCOPES,
} from "../shared/vocabulary";

export type {
  ContentStatus,
  Entitlement,
  LabelKind,
  LiveState,
  Plan,
  StatsMovePhase,
} from "../shared/vocabulary";

export const networks = sqliteTable("networks", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** Bumped whenever a member's catalog changes: part of the edge cache key of network listings. */
  catalogVersion: integer("catalog_version").notNull().default(0),
  createdAt: text("created_at").notNull(),
});

export const organizations = sqliteTable("organizations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  organizationKey: text("organization_key").notNull().unique(),
  name: text("name").notNull(),
  syncCode: text("sync_code").notNull().unique(),
  apiKey: text("api_key").notNull().unique(),
  /** SHA-256 (hex) of the API secret; the secret itself is shown once at creation/rotation. */
  apiSecretHash: text("api_secret_hash").notNull(),
  plan: text("plan", { enum: PLANS }).notNull().default("standard"),
  entitlements: text("entitlements", { mode: "json" })
    .$type<Entitlement[]>()
    .notNull()
    .default(sql`'[]'`),
  networkId: integer("network_id").references(() => networks.id, { onDelete: "set null" }),
  /**
   * Key of the signed player tokens: hex SHA-256 of "player-token:v1:<API secret>", derived when
   * the secret is issued (the secret itself is never stored). Null for secrets issued before.
   */
  playerTokenKey: text("player_token_key"),
  /** Events without a valid player token are refused. */
  playerTokensRequired: integer("player_tokens_required", { mode: "boolean" })
    .notNull()
    .default(false),
  /**
   * Bumped by every change of what the organization's catalog reads answer (catalogChanged),
   * and read with the credentials: part of the edge cache key, so a write makes new keys.
   */
  catalogVersion: integer("catalog_version").notNull().default(0),
  /**
   * Bumped with the catalog version by every change that can change which videos a listing
   * without a text filter holds, or their order (not by an edit of a video's text or media
   * alone): the key of listing ids and counts kept in isolate memory (domain/catalog/listing-ids.ts).
   */
  listingVersion: integer("listing_version").notNull().default(0),
  /**
   * Media and the embed of every video (bar those that say otherwise) need a playback token
   * signed with one of the organization's playback keys (docs/api.md "Signed playback").
   */
  signedPlayback: integer("signed_playback", { mode: "boolean" }).notNull().default(false),
  /** Bumped when statistics change other than by new events (erasure): part of report cache keys. */
  statsVersion: integer("stats_version").notNull().default(0),
  /**
   * The statistics database (shard) holding the organization's statistics: 0 is STATS_DB, n is
   * STATS_DB_n (src/db/stats/shards.ts). Changed only by a move (src/domain/stats/shard-moves.ts).
   */
  statsShard: integer("stats_shard").notNull().default(0),
  /**
   * Playback rights (docs/api.md "Playback rights"): media are served only while a syndication
   * window of the video is open and covers the viewer's country (a video may override it).
   */
  enforcePlaybackWindows: integer("enforce_playback_windows", { mode: "boolean" })
    .notNull()
    .default(false),
  /** Sites allowed to embed the player and fetch the media (host names, `*.` for subdomains). */
  allowedSites: text("allowed_sites", { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  /** Media requests without a Referer or Origin are refused (with allowedSites). */
  referrerRequired: integer("referrer_required", { mode: "boolean" }).notNull().default(false),
  /** The organization's VAST/VMAP ad tag (issue 38): the player's when neither video nor configuration has one. */
  adTagUrl: text("ad_tag_url"),
  /**
   * Bumped by every change of what GET /v2/player/{contentKey} answers beside the video's own
   * row (player configurations, the ad tag above, ecommerce items): part of its edge cache key.
   */
  playerVersion: integer("player_version").notNull().default(0),
  createdAt: text("created_at").notNull(),
  /** The console accepts the API key and secret (or the organization's token) to sign in as its owner (docs/console.md). */
  keySignIn: integer("key_sign_in", { mode: "boolean" }).notNull().default(true),
});

/**
 * An organization's statistics on their way to another shard (docs/statistics.md "Moving an
 * organization"): at most one move per organization, advanced a bounded step at a time by
 * `npm run admin -- stats move` and by the cron. A finished move (`done`) is kept while the old
 * shard still holds message ids the consumer must not count again (MESSAGE_IDS_KEPT_DAYS).
 */
export const statsMoves = sqliteTable("stats_moves", {
  organizationId: integer("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  fromShard: integer("from_shard").notNull(),
  toShard: integer("to_shard").notNull(),
  phase: text("phase", { enum: STATS_MOVE_PHASES }).notNull(),
  /** Days before it cannot change any more while events keep arriving: copied in the `copy` phase. */
  settledBefore: text("settled_before").notNull(),
  /** Where the phase stopped: the table and the last key copied or dropped (JSON). */
  cursor: text("cursor"),
  rowsCopied: integer("rows_copied").notNull().default(0),
  rowsDropped: integer("rows_dropped").notNull().default(0),
  startedAt: text("started_at").notNull(),
  /** When the organization's shard changed (the end of the catch-up). */
  switchedAt: text("switched_at"),
  updatedAt: text("updated_at").notNull(),
});

export type StatsMove = typeof statsMoves.$inferSelect;

export const subOrganizations = sqliteTable(
  "sub_organizations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mmiKey: text("mmi_key").notNull().unique(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("sub_organizations_org_idx").on(t.organizationId)],
);

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** SHA-256 (hex) of the bearer token. */
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: text("created_at").notNull(),
    name: text("name").notNull().default(""),
    /** organization: issued and rotated with the organization's credentials; member, application: POST /v2/tokens. */
    kind: text("kind", { enum: TOKEN_KINDS }).notNull().default("organization"),
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull().default("full"),
    /**
     * The member who made it (their role bounds it); removing the member deletes it. The foreign
     * key to members(id) is in 0030_members.sql (schema-members.ts imports this file).
     */
    memberId: text("member_id"),
    /** Null: never (the organization's own token). */
    expiresAt: text("expires_at"),
  },
  (t) => [
    index("api_tokens_org_idx").on(t.organizationId),
    index("api_tokens_member_idx").on(t.memberId),
  ],
);

export type CustomField = Record<string, string | number>;
export interface Translation {
  language: string;
  title: string;
  description: string;
}
export type Subtitle = Record<string, string>;
/** An ecommerce item placed on a video: shown from start to end (seconds; null: the start, the end). */
export interface ItemPlacement {
  ecommerceKey: string;
  start: number | null;
  end: number | null;
}

export const contents = sqliteTable(
  "contents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    subOrganizationId: integer("sub_organization_id").references(() => subOrganizations.id, {
      onDelete: "set null",
    }),
    contentKey: text("content_key").notNull().unique(),
    title: text("title").notNull().default(""),
    description: text("description").notNull().default(""),
    /** Publisher-given thumbnail URL; null means the service's own thumbnail URL. */
    thumbnailUrl: text("thumbnail_url"),
    // Names are denormalized here for reading (records render without a join);
    // content_labels holds the same names for filtering. Both are written by one function.
    categories: text("categories", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    events: text("events", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    customFields: text("custom_fields", { mode: "json" })
      .$type<CustomField[]>()
      .notNull()
      .default(sql`'[]'`),
    translations: text("translations", { mode: "json" })
      .$type<Translation[]>()
      .notNull()
      .default(sql`'[]'`),
    subtitles: text("subtitles", { mode: "json" }).$type<Subtitle[]>().notNull().default(sql`'[]'`),
    /**
     * The caption tracks the service keeps (schema-captions.ts caption_tracks, rewritten from it
     * by db/captions.ts in the same batch as every change), for the readers that show them with
     * the record: playlists, records and feed files, the player.
     */
    captions: text("captions", { mode: "json" })
      .$type<KeptCaption[]>()
      .notNull()
      .default(sql`'[]'`),
    serviceCategories: text("service_categories", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    isLive: integer("is_live", { mode: "boolean" }).notNull().default(false),
    urlHls: text("url_hls"),
    /**
     * A live stream's state (null: an uploaded video). Its segments and live window are kept by
     * its Durable Object (src/durable/live-stream.ts), not here: this changes at start and end.
     */
    liveState: text("live_state", { enum: LIVE_STATES }),
    /**
     * Why the stored file has no HLS stream though it was accepted (over the packager's budget,
     * domain/streaming.ts), else null: the record then has no service urlHLS.
     */
    streamError: text("stream_error"),
    /** Whether playback needs a signed token: null follows the organization's setting. */
    signedPlayback: integer("signed_playback", { mode: "boolean" }),
    /** The video's own enforcePlaybackWindows (null: the organization's). */
    enforcePlaybackWindows: integer("enforce_playback_windows", { mode: "boolean" }),
    /** The video's own VAST/VMAP ad tag (null: its player configuration's, else its organization's). */
    adTagUrl: text("ad_tag_url"),
    /** Ecommerce items shown over the video, each optionally for a time range (seconds). */
    itemPlacements: text("item_placements", { mode: "json" })
      .$type<ItemPlacement[]>()
      .notNull()
      .default(sql`'[]'`),
    removed: integer("removed", { mode: "boolean" }).notNull().default(false),
    status: text("status", { enum: CONTENT_STATUSES }).notNull().default("uploading"),
    rejectionReason: text("rejection_reason"),
    contentSize: integer("content_size").notNull(),
    suffix: text("suffix").notNull().default(".mp4"),
    /** R2 key of the media object, `<contentKey>/<contentKey><suffix>`. */
    mediaKey: text("media_key").notNull(),
    /** R2 multipart upload id while the upload is open; null once completed, rejected or aborted. */
    uploadId: text("upload_id"),
    chunkSize: integer("chunk_size").notNull(),
    /** When E2 was first asked to complete the upload: the cron finishes uploads a crash left open. */
    completeRequestedAt: text("complete_requested_at"),
    /**
     * When an upload's part URLs were last signed by the resume endpoint (null: only by E1, at
     * createdAt). The cron expires an upload from the later of the two, never under live URLs.
     */
    uploadSignedAt: text("upload_signed_at"),
    thumbnailUploaded: integer("thumbnail_uploaded", { mode: "boolean" }).notNull().default(false),
    /** Moves on each time a thumbnail is stored: the service thumbnail URL carries it (?v=), so a replaced one has a new URL. */
    thumbnailVersion: integer("thumbnail_version").notNull().default(0),
    duration: real("duration"),
    width: integer("width"),
    height: integer("height"),
    videoCodec: text("video_codec"),
    audioCodec: text("audio_codec"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    publishedAt: text("published_at"),
  },
  (t) => [
    // Listings read only listable videos (available, not removed), newest first: partial
    // indexes keep those scans to the rows they return. Queries must repeat LISTABLE.
    index("contents_listable_org_idx")
      .on(t.organizationId, t.publishedAt, t.id)
      .where(sql`status = 'available' and removed = 0`),
    index("contents_listable_sub_org_idx")
      .on(t.subOrganizationId, t.publishedAt, t.id)
      .where(sql`status = 'available' and removed = 0`),
    index("contents_org_idx").on(t.organizationId, t.status),
    // The console's library: every status, newest first, paged by (createdAt, id) keys.
    index("contents_library_idx").on(t.organizationId, t.createdAt, t.id),
    index("contents_library_status_idx").on(t.organizationId, t.status, t.createdAt, t.id),
    // The library's other orders (db/library.ts#LIBRARY_ORDERS, the same expressions).
    index("contents_library_title_idx").on(t.organizationId, sql`lower(${t.title})`, t.id),
    index("contents_library_duration_idx").on(
      t.organizationId,
      sql`coalesce(${t.duration}, -1)`,
      t.id,
    ),
    index("contents_library_published_idx").on(
      t.organizationId,
      sql`coalesce(${t.publishedAt}, '')`,
      t.id,
    ),
    // The organization's live streams, newest first, all or of one state (GET /v2/live/list).
    index("contents_live_idx")
      .on(t.organizationId, t.createdAt, t.id)
      .where(sql`live_state is not null`),
    index("contents_live_state_idx")
      .on(t.organizationId, t.liveState, t.createdAt, t.id)
      .where(sql`live_state is not null`),
    // The cron's sweep of unfinished uploads (expired, or completed in R2 but not in D1).
    index("contents_open_uploads_idx").on(t.createdAt).where(sql`status = 'uploading'`),
    // The cron's sweeps of videos left processing: clips never made, ladders never planned.
    index("contents_processing_idx").on(t.updatedAt).where(sql`status = 'processing'`),
  ],
);

/**
 * Parts the worker's signed part URLs stored into an open multipart upload (the R2 binding has
 * no ListParts): what a resuming client is told is already there. A part uploaded again
 * replaces its row, as R2 replaces the part. Removed with the content, and when the upload ends.
 */
export const uploadParts = sqliteTable(
  "upload_parts",
  {
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    partNumber: integer("part_number").notNull(),
    size: integer("size").notNull(),
    /** R2's part ETag, unquoted (E2 takes it quoted or not). */
    etag: text("etag").notNull(),
    uploadedAt: text("uploaded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.contentId, t.partNumber] })],
);

/** Category, tag and event names of an organization (case-sensitive). */
export const labels = sqliteTable(
  "labels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: LABEL_KINDS }).notNull(),
    name: text("name").notNull(),
    /**
     * Listable videos carrying the name, kept by triggers (migrations/0006_label_count_triggers.sql):
     * answers `count` for a one-name filter and tells a popular name from a rare one.
     */
    videos: integer("videos").notNull().default(0),
  },
  (t) => [uniqueIndex("labels_org_kind_name_idx").on(t.organizationId, t.kind, t.name)],
);

export const contentLabels = sqliteTable(
  "content_labels",
  {
    labelId: integer("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    /**
     * The video is listable (available, not removed), kept by triggers
     * (migrations/0010_cold_read_indexes.sql): name counts read the listable links alone.
     */
    listable: integer("listable", { mode: "boolean" }).notNull().default(false),
    /**
     * The video's published_at, written with the link and kept by triggers
     * (migrations/0037_label_listing_order.sql): a label's listable links newest first, on
     * content_labels_listing_idx.
     */
    publishedAt: text("published_at"),
  },
  (t) => [
    primaryKey({ columns: [t.labelId, t.contentId] }),
    // (content_id, label_id) answers "does this video carry one of these names" from the index alone.
    index("content_labels_content_label_idx").on(t.contentId, t.labelId),
    index("content_labels_listable_idx").on(t.labelId, t.contentId).where(sql`listable = 1`),
    index("content_labels_listing_idx")
      .on(t.labelId, t.publishedAt, t.contentId)
      .where(sql`listable = 1`),
  ],
);

export type Organization = typeof organizations.$inferSelect;
export type SubOrganization = typeof subOrganizations.$inferSelect;
export type Content = typeof contents.$inferSelect;
export type UploadPart = typeof uploadParts.$inferSelect;

/**
 * Number of listable videos per organization (sub_organization_id 0) and per sub-organization,
 * kept by triggers on contents (migrations/0004_listing_count_triggers.sql) so that unfiltered
 * listings answer `count` with one row read instead of counting the catalog.
 */
export const listingCounts = sqliteTable(
  "listing_counts",
  {
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    subOrganizationId: integer("sub_organization_id").notNull(),
    videos: integer("videos").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.subOrganizationId] })],
);

/** Custom fields as rows, for the E6 customFields filter (values as strings: 3 and "3" match alike). */
export const contentCustomFields = sqliteTable(
  "content_custom_fields",
  {
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    organizationId: integer("organization_id").notNull(),
    name: text("name").notNull(),
    value: text("value").notNull(),
  },
  (t) => [
    index("content_custom_fields_lookup_idx").on(t.organizationId, t.name, t.value, t.contentId),
    // A walk's per-video check reads only the matching field.
    index("content_custom_fields_content_idx").on(t.contentId, t.name, t.value),
  ],
);

/** Syndication windows (operator-set): when and where a video is shown to the network. */
export const syndications = sqliteTable(
  "syndications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    startTime: text("start_time").notNull(),
    /** null: open-ended. */
    stopTime: text("stop_time"),
    /** ISO 3166 alpha-3 codes; empty or ["-"] means everywhere. */
    geos: text("geos", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
  },
  (t) => [
    index("syndications_content_idx").on(t.contentId),
    // The cron finds windows that opened or closed since its last run.
    index("syndications_start_idx").on(t.startTime),
    index("syndications_stop_idx").on(t.stopTime),
  ],
);

/**
 * Videos shown to their network right now: listable, of an organization in a network, with a
 * syndication window open at the last refresh. Kept by the writes (catalogChanged) and the cron
 * as windows open and close (db/network-listings.ts), so a network listing walks the page it
 * returns instead of every open window. `geos`: '[]' for everywhere, else the alpha-3 codes
 * the open windows cover.
 */
export const networkListings = sqliteTable(
  "network_listings",
  {
    contentId: integer("content_id")
      .primaryKey()
      .references(() => contents.id, { onDelete: "cascade" }),
    networkId: integer("network_id")
      .notNull()
      .references(() => networks.id, { onDelete: "cascade" }),
    organizationId: integer("organization_id").notNull(),
    publishedAt: text("published_at").notNull(),
    geos: text("geos").notNull(),
  },
  (t) => [index("network_listings_walk_idx").on(t.networkId, t.publishedAt, t.contentId)],
);

/**
 * network_listings counted per network, organization and country ('' = everywhere), kept by
 * triggers (migrations/0010_cold_read_indexes.sql): a network listing's `count` in a few rows.
 */
export const networkListingCounts = sqliteTable(
  "network_listing_counts",
  {
    networkId: integer("network_id").notNull(),
    organizationId: integer("organization_id").notNull(),
    country: text("country").notNull(),
    videos: integer("videos").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.networkId, t.organizationId, t.country] })],
);

export interface FeedFileState {
  /** R2 key → SHA-256 of the bytes last written there. */
  [key: string]: string;
}

export const feeds = sqliteTable(
  "feeds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    feedId: text("feed_id").notNull().unique(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Created with X-Service-MMI-Key: the sub-organization's feed, holding only its videos (null: the organization's). */
    subOrganizationId: integer("sub_organization_id").references(() => subOrganizations.id, {
      onDelete: "cascade",
    }),
    name: text("name").notNull(),
    categories: text("categories", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    events: text("events", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Set when something that affects the feed's files changed; cleared by the rebuild that saw it. */
    dirtySince: text("dirty_since"),
    /**
     * Moves on with every such change (each dirty mark): the edge-cache version of the feed's
     * public reads (E15, json-feed), so another feed's or video's write leaves them cached.
     */
    version: integer("version").notNull().default(0),
    /** A rebuild holds the feed until then (a lease): overlapping runs do not rebuild it twice. */
    buildingUntil: text("building_until"),
    builtAt: text("built_at"),
    files: text("files", { mode: "json" }).$type<FeedFileState>().notNull().default(sql`'{}'`),
    /**
     * While dirty: the videos (content ids) whose entries the next build patches; null: the next
     * build rebuilds the files from the feed's query (domain/feeds/patches.ts).
     */
    patchIds: text("patch_ids", { mode: "json" }).$type<number[]>(),
    /** The first patch mark since the last build: a patch waits FEED_PATCH_DELAY_SECONDS from it. */
    waitingSince: text("waiting_since"),
  },
  (t) => [
    index("feeds_org_idx").on(t.organizationId),
    index("feeds_dirty_idx").on(t.dirtySince),
    // An organization's dirty feeds (a pass's claims and its checks after): a few rows, not all its feeds.
    index("feeds_org_dirty_idx")
      .on(t.organizationId, t.dirtySince)
      .where(sql`dirty_since is not null`),
  ],
);

/** Small key/value state of the scheduled handler (last run, reconcile cursor). */
export const cronState = sqliteTable("cron_state", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});

export type Feed = typeof feeds.$inferSelect;
export type Syndication = typeof syndications.$inferSelect;
