// The service's vocabulary: plans, entitlements, kinds of names, content states. The database
// schema, the rules and the API schemas all use these lists.

export const PLANS = ["standard", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const ENTITLEMENTS = [
  "network",
  "mmi",
  "watched_by_tput",
  "custom_fields",
  "events",
  "enterprise_player",
  "viewer_analytics",
  "ecommerce",
] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export const LABEL_KINDS = ["category", "tag", "event"] as const;
export type LabelKind = (typeof LABEL_KINDS)[number];

/**
 * uploading until E2 completes; processing after E2 while a source that is not H.264 is
 * transcoded (docs/renditions.md); available once published; rejected when the media failed the
 * checks (or could not be transcoded); expired when the upload was abandoned (its signed URLs
 * expired, the cron aborted it).
 */
export const CONTENT_STATUSES = [
  "uploading",
  "processing",
  "available",
  "rejected",
  "expired",
] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
/**
 * A live stream's state (contents.live_state; null for uploaded videos): waiting for its
 * encoder, live, or ended (its recording is a video on demand).
 */
export const LIVE_STATES = ["idle", "live", "ended"] as const;
export type LiveState = (typeof LIVE_STATES)[number];

/** How the console's library may be ordered (GET /v2/content/list?sort=). */
export const LIBRARY_SORTS = ["created", "title", "duration", "published"] as const;
export type LibrarySort = (typeof LIBRARY_SORTS)[number];

/** The phases of moving an organization's statistics to another shard (src/domain/stats/shard-moves.ts). */
export const STATS_MOVE_PHASES = ["copy", "catch-up", "drop", "done"] as const;
export type StatsMovePhase = (typeof STATS_MOVE_PHASES)[number];

/** How the service's player starts (player configurations, issue 38). */
export const PLAYER_AUTOPLAY = ["off", "muted-in-view"] as const;
export type PlayerAutoplay = (typeof PLAYER_AUTOPLAY)[number];

/** Members' roles, most rights first (the matrix: src/domain/members/access.ts). */
export const MEMBER_ROLES = ["owner", "admin", "editor", "analyst"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const MEMBER_STATUSES = ["active", "suspended"] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** What an API token may do (the matrix: src/domain/members/access.ts). */
export const TOKEN_SCOPES = ["read", "content", "reports", "full"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** Who made a token: the organization's own (issued with it, rotated with it), a member, or the API key and secret (an application's). */
export const TOKEN_KINDS = ["organization", "member", "application"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** How a console session was opened. */
export const SIGN_IN_METHODS = ["key", "token", "passkey", "access"] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];
