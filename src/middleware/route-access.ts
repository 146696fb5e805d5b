// What every route needs, declared once, by method and path (as the OpenAPI document writes
// it): a capability of src/domain/members/access.ts, checked for every credential by
// authenticate() (./auth.ts), or `public` (no credentials, the player's sync code, or a
// credential of the route's own: a signed upload URL, a stream key, the sign-in endpoints) or
// `operator` (ADMIN_TOKEN). test/route-access.test.ts walks every route of the app and fails
// when one is missing here: a new route gets its line in the same change.
//
// Every write (any method but GET/HEAD) of a capability or operator route is recorded in the
// audit log by ./audit.ts, unless listed in NOT_AUDITED (it changes nothing).
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { Capability } from "../domain/members/access";

export type RouteAccess = Capability | "public" | "operator";

export const ROUTE_ACCESS: Record<string, RouteAccess> = {
  // Content and uploads (E1–E5)
  "POST /v2/content": "content:write",
  "POST /v2/content/complete": "content:write",
  "POST /v2/content/thumbnail": "content:write",
  "GET /v2/content": "library:read",
  "PUT /v2/content": "content:write",
  "DELETE /v2/content": "content:write",
  "GET /v2/content/upload": "content:write",
  "GET /v2/content/list": "library:read",
  "PUT /v2/uploads/part": "public",
  "PUT /v2/uploads/thumbnail": "public",
  // Renditions
  "GET /v2/renditions/ladder": "library:read",
  "PUT /v2/renditions/ladder": "content:write",
  "GET /v2/content/renditions": "library:read",
  "POST /v2/content/renditions/retry": "content:write",
  // Listing and search (E6, E13–E16)
  "GET /v2/videos": "library:read",
  "GET /get_videos": "library:read",
  "GET /prod/search_metadata": "library:read",
  "GET /prod/get_video_by_cattag": "library:read",
  "GET /prod/search_video_list": "library:read",
  "GET /search_video_feed": "public",
  // Feeds
  "POST /v2/feeds": "content:write",
  "GET /v2/feeds": "library:read",
  "GET /v2/feeds/{feed_id}": "library:read",
  "PUT /v2/feeds/{feed_id}": "content:write",
  "DELETE /v2/feeds/{feed_id}": "content:write",
  "GET /{feed_id}-feed.json": "public",
  // The same route as Hono matches it (a pattern: /:file{…-feed\.json}).
  "GET /{file}": "public",
  "GET /v2/orgs/{sync_code}/feeds.json": "public",
  "GET /v2/feeds/{feed_id}/videos.json": "public",
  "GET /v2/feeds/{feed_id}/metadata.json": "public",
  "GET /json-feed": "public",
  // Statistics (E7–E12)
  "GET /v2/analytics/{type}": "reports:read",
  "GET /v2/analytics/video/totals": "reports:read",
  "GET /prod/get_video_reports": "reports:read",
  "GET /prod/get_video_reports_combined": "reports:read",
  "GET /prod/get_ad_reports": "reports:read",
  "GET /prod/get_ecommerce_reports": "reports:read",
  "GET /prod/get_viewer_reports": "viewers:read",
  "GET /v2/ingestion": "reports:read",
  "GET /v2/analytics/qoe": "reports:read",
  "GET /v2/analytics/qoe/views": "reports:read",
  "GET /v2/analytics/qoe/alerts": "reports:read",
  // Thresholds decide which webhooks are sent: a setting, like the webhooks themselves.
  "PUT /v2/analytics/qoe/alerts": "settings:write",
  "DELETE /v2/viewers": "viewers:erase",
  "POST /v2/events": "public",
  // The CMCD v2 collector: players name the organization by its sync code, as for events.
  "POST /v2/cmcd": "public",
  "GET /v2/cmcd": "public",
  // Players and items
  "GET /v2/player/{contentKey}": "public",
  "GET /v2/player-configurations": "library:read",
  "GET /v2/player-configurations/{configId}": "library:read",
  "POST /v2/player-configurations": "content:write",
  "PUT /v2/player-configurations/{configId}": "content:write",
  "DELETE /v2/player-configurations/{configId}": "content:write",
  "GET /v2/player-settings": "library:read",
  "PUT /v2/player-settings": "content:write",
  "GET /v2/ecommerce": "library:read",
  "POST /v2/ecommerce": "content:write",
  "PUT /v2/ecommerce": "content:write",
  "DELETE /v2/ecommerce": "content:write",
  // Live
  "POST /v2/live": "content:write",
  "POST /v2/clips": "content:write",
  "GET /v2/live": "library:read",
  "GET /v2/live/list": "library:read",
  "POST /v2/live/key": "content:write",
  "POST /v2/live/end": "content:write",
  "PUT /live-ingest/{contentKey}/{streamKey}/{file}": "public",
  "POST /live-ingest/{contentKey}/{streamKey}/{file}": "public",
  "DELETE /live-ingest/{contentKey}/{streamKey}/{file}": "public",
  "GET /live/{contentKey}/{version}/{file}": "public",
  // Media, streams, the player page
  "GET /media/{contentKey}/{file}": "public",
  "GET /thumbnails/{file}": "public",
  "GET /hls/{contentKey}/{version}/{file}": "public",
  "GET /embed/{contentKey}": "public",
  // Signed playback: whether tokens are required is the library's; keys are settings
  "GET /v2/playback-settings": "library:read",
  "PUT /v2/playback-settings": "settings:write",
  "POST /v2/playback-keys": "settings:write",
  "GET /v2/playback-keys": "settings:read",
  "DELETE /v2/playback-keys/{keyId}": "settings:write",
  "POST /v2/playback-tokens": "library:read",
  // Captions
  "GET /v2/content/captions/{contentKey}": "library:read",
  "GET /v2/content/captions/{contentKey}/{language}": "library:read",
  "PUT /v2/content/captions/{contentKey}/{language}": "content:write",
  "PATCH /v2/content/captions/{contentKey}/{language}": "content:write",
  "DELETE /v2/content/captions/{contentKey}/{language}": "content:write",
  "POST /v2/content/captions/{contentKey}/generate": "content:write",
  "GET /v2/captions/settings": "library:read",
  // Turns a paid engine on for every video published: a setting, as playback settings are.
  "PUT /v2/captions/settings": "settings:write",
  // Webhooks
  "POST /v2/webhooks": "settings:write",
  "GET /v2/webhooks": "settings:read",
  "GET /v2/webhooks/{id}": "settings:read",
  "PATCH /v2/webhooks/{id}": "settings:write",
  "DELETE /v2/webhooks/{id}": "settings:write",
  "POST /v2/webhooks/{id}/rotate-secret": "settings:write",
  "GET /v2/webhooks/{id}/deliveries": "settings:read",
  "POST /v2/webhooks/{id}/deliveries/{deliveryId}/redeliver": "settings:write",
  // The organization
  "GET /v2/organization": "library:read",
  "GET /v2/organization/labels": "library:read",
  "POST /v2/organization/credentials/rotate": "settings:write",
  "GET /v2/organization/sign-in": "members:read",
  "PUT /v2/organization/sign-in": "owner:settings",
  // Members, tokens, passkeys, sessions, audit
  "GET /v2/members": "members:read",
  "PATCH /v2/members/{id}": "members:write",
  "DELETE /v2/members/{id}": "members:write",
  "POST /v2/members/{id}/erase": "members:write",
  "POST /v2/members/{id}/recovery": "members:write",
  "GET /v2/members/{id}/sessions": "members:read",
  "DELETE /v2/members/{id}/sessions": "members:write",
  "POST /v2/members/invitations": "members:write",
  "GET /v2/members/invitations": "members:read",
  "DELETE /v2/members/invitations": "members:write",
  "POST /v2/tokens": "self",
  "GET /v2/tokens": "self",
  "DELETE /v2/tokens/{id}": "self",
  "GET /v2/passkeys": "self",
  "POST /v2/passkeys/options": "self",
  "POST /v2/passkeys": "self",
  "DELETE /v2/passkeys/{id}": "self",
  "GET /v2/sessions": "self",
  "DELETE /v2/sessions/{id}": "self",
  "GET /v2/audit": "audit:read",
  // The console: its page, sign-in (credentials of their own), the session
  "GET /console/": "public",
  "GET /console": "public",
  "POST /v2/console/session": "public",
  "GET /v2/console/session": "public",
  "GET /v2/console/session/status": "public",
  "DELETE /v2/console/session": "public",
  "GET /v2/console/sign-in": "public",
  "POST /v2/console/passkey/options": "public",
  "POST /v2/console/passkey": "public",
  "POST /v2/console/access": "public",
  "POST /v2/console/invitation": "public",
  "POST /v2/console/invitation/accept": "public",
  // The operator API
  "POST /admin/organizations": "operator",
  "GET /admin/organizations": "operator",
  "GET /admin/organizations/{organizationKey}": "operator",
  "PATCH /admin/organizations/{organizationKey}": "operator",
  "POST /admin/organizations/{organizationKey}/sub-organizations": "operator",
  "POST /admin/organizations/{organizationKey}/credentials/rotate": "operator",
  "DELETE /admin/organizations/{organizationKey}": "operator",
  "PATCH /admin/videos/{contentKey}": "operator",
  "POST /admin/feeds/rebuild": "operator",
  "POST /admin/organizations/{organizationKey}/statistics/move": "operator",
  "GET /admin/statistics/shards": "operator",
  "GET /admin/organizations/{organizationKey}/ingestion": "operator",
  "GET /admin/events/dead-letters": "operator",
  "POST /admin/events/dead-letters/replay": "operator",
  // The service itself
  "GET /openapi.json": "public",
  "GET /docs": "public",
  "GET /healthz": "public",
};

/** Writes that change nothing, so the audit log does not list them. */
export const NOT_AUDITED = new Set(["POST /v2/playback-tokens", "POST /v2/passkeys/options"]);

/** The route's key in ROUTE_ACCESS: its method and path as the OpenAPI document writes it (Hono's `:name` or `:name{regex}` as `{name}`). */
export function routeKey(method: string, routePath: string): string {
  const verb = method === "HEAD" ? "GET" : method;
  let path = "";
  for (let i = 0; i < routePath.length; i++) {
    const name = routePath[i] === ":" ? /^[A-Za-z0-9_]+/.exec(routePath.slice(i + 1))?.[0] : null;
    if (!name) {
      path += routePath[i];
      continue;
    }
    path += `{${name}}`;
    i += name.length;
    // Skip the parameter's pattern, braces balanced.
    if (routePath[i + 1] === "{") {
      let depth = 0;
      do {
        i++;
        if (routePath[i] === "{") depth++;
        else if (routePath[i] === "}") depth--;
      } while (depth > 0 && i < routePath.length);
    }
  }
  return `${verb} ${path}`;
}

/** The path (Hono's form) of the route that answers the request: its handler's, not a group middleware's `/admin/*`. */
function handlerPath(c: Context): string {
  const routes = matchedRoutes(c);
  const handler = [...routes].reverse().find((r) => r.method !== "ALL") ?? routes.at(-1);
  return handler?.path ?? c.req.routePath;
}

/** The key of the route that answers the request. */
export const handlerRouteKey = (c: Context) => routeKey(c.req.method, handlerPath(c));

/**
 * The path parameters of the route that answers the request, also in a middleware that runs
 * before it (c.req.param() there answers the middleware's own, none for `/admin/*`).
 */
export function handlerParams(c: Context): Record<string, string> {
  const names: string[] = [];
  const pattern = routeKey("GET", handlerPath(c))
    .slice(4)
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      const name = /^\{([A-Za-z0-9_]+)\}$/.exec(part)?.[1];
      if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(name);
      return "([^/]+)";
    })
    .join("");
  const match = new RegExp(`^${pattern}/?$`).exec(new URL(c.req.url).pathname);
  return Object.fromEntries(names.map((n, i) => [n, decodedParam(match?.[i + 1] ?? "")]));
}

/** A path parameter decoded as the router does: one that is not valid percent-encoded UTF-8 stays as sent (then fails its schema: 400). */
function decodedParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
