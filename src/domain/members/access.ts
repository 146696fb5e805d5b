// Who may do what: the one written-down matrix of roles and token scopes (docs/console.md
// "Roles", docs/api.md "Roles and token scopes"; test/access.test.ts checks the docs' tables
// against these). Every authenticated route names ONE capability
// (src/middleware/route-access.ts); a request may use the route when the capabilities of its
// credentials hold it: a member's role, narrowed by a token's scope.
import type { MemberRole, TokenScope } from "../../shared/vocabulary";

export const CAPABILITIES = {
  "library:read":
    "read the library: videos, feeds, players, items, live streams, renditions, the organization's record",
  "reports:read": "read the statistics (analytics, reports, ingestion)",
  "viewers:read": "read viewer-level reports (personal data: E10)",
  "content:write":
    "change videos and uploads, feeds, players, items, live streams, clips, captions, renditions",
  "viewers:erase": "erase viewer data",
  "settings:read": "see webhooks, signed-playback keys and settings",
  "settings:write":
    "change webhooks, signed-playback keys and settings, rotate the organization's credentials",
  "members:read": "list members and invitations",
  "members:write": "invite, change, suspend and remove members (owners: owners only)",
  "audit:read": "read the audit log",
  "owner:settings": "the organization's sign-in options (key and secret sign-in on or off)",
  self: "one's own tokens, sessions and passkeys",
} as const;

export type Capability = keyof typeof CAPABILITIES;
export const ALL_CAPABILITIES = Object.keys(CAPABILITIES) as Capability[];

const READS: Capability[] = [
  "library:read",
  "reports:read",
  "viewers:read",
  "settings:read",
  "members:read",
  "audit:read",
];

/** What each role may do. An owner may do everything; an admin all but owners' business. */
export const ROLE_CAPABILITIES: Record<MemberRole, readonly Capability[]> = {
  owner: ALL_CAPABILITIES,
  admin: ALL_CAPABILITIES.filter((c) => c !== "owner:settings"),
  editor: ["library:read", "reports:read", "content:write", "self"],
  analyst: ["library:read", "reports:read", "viewers:read", "self"],
};

/** What each token scope may do, within the capabilities of whoever made the token. */
export const SCOPE_CAPABILITIES: Record<TokenScope, readonly Capability[]> = {
  read: READS,
  content: [...READS, "content:write"],
  reports: ["reports:read", "viewers:read"],
  full: ALL_CAPABILITIES,
};

/** Who may act on members of a role: owners only for owners (an admin does everything but owners). */
export function mayManageRole(actorRole: MemberRole | null, targetRole: MemberRole): boolean {
  return actorRole === null || actorRole === "owner" || targetRole !== "owner";
}

/**
 * The capabilities of credentials: a member's role (null: the organization's own credentials, the
 * API key and secret or its token, which hold the owner's), narrowed by a token's scope.
 */
export function capabilitiesOf(
  role: MemberRole | null,
  scope: TokenScope | null,
): ReadonlySet<Capability> {
  const byRole = role === null ? ALL_CAPABILITIES : ROLE_CAPABILITIES[role];
  const byScope = scope === null ? null : new Set(SCOPE_CAPABILITIES[scope]);
  return new Set(byScope ? byRole.filter((c) => byScope.has(c)) : byRole);
}

/** The scopes that would allow a capability (a refusal names them). */
export function scopesAllowing(capability: Capability): TokenScope[] {
  return (Object.keys(SCOPE_CAPABILITIES) as TokenScope[]).filter((s) =>
    SCOPE_CAPABILITIES[s].includes(capability),
  );
}

/** The roles that hold a capability (a refusal names them). */
export function rolesAllowing(capability: Capability): MemberRole[] {
  return (Object.keys(ROLE_CAPABILITIES) as MemberRole[]).filter((r) =>
    ROLE_CAPABILITIES[r].includes(capability),
  );
}
