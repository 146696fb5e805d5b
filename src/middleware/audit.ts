// The one place writes are recorded in the audit log (docs/api.md "Audit log"). `auditWrites`
// follows authenticate() in every authenticated route's chain (./credentials.ts), the operator
// token on /admin/* (routes/admin) and the sign-in routes, whose handler says who signed in: it
// lets the route answer and, when a write succeeded, records who (the request's principal),
// what (the route, its object, the fields changed), when and from where (an address bucket).
//
// What changed: the fields of the request's validated JSON body (scalar values kept, secrets
// never); for settings and rights (SNAPSHOTS), the values before and after, read around the
// write. A route adds a snapshot here when its before/after matters; nothing in its handler.
import type { Context, MiddlewareHandler, Next } from "hono";
import { type AuditChange, changedFields, recordAudit } from "../domain/audit/audit";
import { organizationByKey } from "../domain/authentication";
import { loadContentOr404 } from "../domain/content/content";
import { memberSnapshot } from "../domain/members/members";
import { type Actor, OPERATOR_ACTOR } from "../domain/members/principal";
import { playbackSettings } from "../domain/playback/keys";
import type { AppEnv } from "../http/context";
import { credentialDeps, requestDeps, requestScope } from "../http/deps";
import { clientIp } from "../http/request";
import { coarseAddress } from "../shared/client-address";
import { handlerParams, handlerRouteKey, NOT_AUDITED, ROUTE_ACCESS } from "./route-access";

type Snapshot = (c: Context<AppEnv>) => Promise<Record<string, unknown> | null>;

const param = (c: Context<AppEnv>, name: string) => handlerParams(c)[name] ?? "";
const validBody = (c: Context<AppEnv>) =>
  (c.req.valid("json" as never) as Record<string, unknown> | undefined) ?? {};

/** The JSON body, validated once the route's validator ran, else as sent (a snapshot taken before the write). */
async function bodyOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const valid = c.req.valid("json" as never) as Record<string, unknown> | undefined;
  if (valid) return valid;
  if (!c.req.header("Content-Type")?.includes("application/json")) return {};
  const raw: unknown = await c.req.json().catch(() => null);
  return raw && typeof raw === "object" && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

/** Settings and rights: their values before and after the write. */
const SNAPSHOTS: Record<string, Snapshot> = {
  "PUT /v2/playback-settings": async (c) => playbackSettings(c.get("db"), c.get("auth").org.id),
  // E4 sends the whole record back: the fields whose stored value it changed, before and after.
  "PUT /v2/content": async (c) => {
    const body = await bodyOf(c);
    if (typeof body.contentKey !== "string") return null;
    const content = await loadContentOr404(c.get("db"), requestScope(c), body.contentKey).catch(
      () => null,
    );
    if (!content) return null;
    const stored = content as unknown as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(body)
        .filter((f) => f in stored)
        .map((f) => [f, stored[f]]),
    );
  },
  "PATCH /v2/members/{id}": (c) =>
    memberSnapshot(requestDeps(c), c.get("auth").org.id, param(c, "id")),
  "DELETE /v2/members/{id}": (c) =>
    memberSnapshot(requestDeps(c), c.get("auth").org.id, param(c, "id")),
  "PUT /v2/organization/sign-in": async (c) => ({ keySignIn: c.get("auth").org.keySignIn }),
  // The operator's changes of an organization's plan, entitlements, network and settings.
  "PATCH /admin/organizations/{organizationKey}": async (c) => {
    const org = await organizationByKey(
      { ...credentialDeps(c), credentialCacheMs: 0 },
      param(c, "organizationKey"),
    );
    return (
      org && {
        name: org.name,
        plan: org.plan,
        entitlements: org.entitlements,
        network: org.networkName,
        playerTokensRequired: org.playerTokensRequired,
        enforcePlaybackWindows: org.enforcePlaybackWindows,
        allowedSites: org.allowedSites,
        referrerRequired: org.referrerRequired,
      }
    );
  },
};

/** Field names whose values are never written down. */
const SECRET_FIELD = /secret|token|password|key$|credential|publicKey/i;
const SCALAR_MAX = 200;

const isScalar = (value: unknown) =>
  value === null ||
  typeof value === "boolean" ||
  typeof value === "number" ||
  (typeof value === "string" && value.length <= SCALAR_MAX);

/** The fields a write sent; short values (and short lists of them) kept, secrets never. */
function bodyChanges(body: Record<string, unknown>): AuditChange[] {
  return Object.entries(body).map(([field, value]) => {
    const kept =
      isScalar(value) || (Array.isArray(value) && value.length <= 20 && value.every(isScalar));
    return kept && !SECRET_FIELD.test(field) ? { field, after: value } : { field };
  });
}

/** The object a route writes: its collection (the path's first part) and id (the first path parameter, or the key the body or answer names). */
async function objectOf(c: Context<AppEnv>, path: string) {
  const parts = path.split("/").filter(Boolean);
  const at = parts[0] === "v2" || parts[0] === "admin" ? 1 : 0;
  const type = parts[at + 1] === "invitations" ? "invitations" : (parts[at] ?? "service");
  const params = Object.values(handlerParams(c));
  if (params[0]) return { type, id: params[0] };
  const body = validBody(c);
  const query = (c.req.valid("query" as never) as Record<string, unknown> | undefined) ?? {};
  let answer: Record<string, unknown> = {};
  if (c.res.headers.get("Content-Type")?.includes("application/json")) {
    const text = await c.res.clone().text();
    if (text.length < 100_000) answer = JSON.parse(text) as Record<string, unknown>;
  }
  for (const source of [body, query, answer]) {
    for (const name of ["contentKey", "id", "keyId", "feed_id", "organizationKey"]) {
      const value = source[name];
      if (typeof value === "string" || typeof value === "number")
        return { type, id: String(value).slice(0, 200) };
    }
  }
  return { type, id: null };
}

/** The organization an operator's write concerns (null: none, or it is gone). */
async function operatorOrganization(c: Context<AppEnv>): Promise<number | null> {
  let key = param(c, "organizationKey") || (validBody(c).organizationKey as string | undefined);
  if (!key && c.res.headers.get("Content-Type")?.includes("application/json")) {
    const answer = (await c.res.clone().json()) as { organizationKey?: unknown };
    if (typeof answer.organizationKey === "string") key = answer.organizationKey;
  }
  if (!key) return null;
  const org = await organizationByKey({ ...credentialDeps(c), credentialCacheMs: 0 }, key);
  return org?.id ?? null;
}

/** Runs the route and, when the write succeeded, records it. */
async function audited(c: Context<AppEnv>, next: Next): Promise<void> {
  const method = c.req.method;
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
  const key = handlerRouteKey(c);
  const snapshot = SNAPSHOTS[key];
  const previous = snapshot ? await snapshot(c) : null;
  await next();
  if (c.res.status >= 400 || NOT_AUDITED.has(key)) return;
  // A sign-in route sets who signed in once it succeeded; the operator API has no principal.
  const auth = c.get("auth") as AppEnv["Variables"]["auth"] | undefined;
  const operator = ROUTE_ACCESS[key] === "operator";
  if (!operator && !auth?.principal) return;
  const organizationId = operator ? await operatorOrganization(c) : auth!.org.id;
  if (organizationId === null) return;
  const actor: Actor = operator ? OPERATOR_ACTOR : auth!.principal!.actor;
  const changes = snapshot ? changedFields(previous, await snapshot(c)) : bodyChanges(validBody(c));
  const ip = clientIp(c.req.raw);
  try {
    await recordAudit(requestDeps(c), {
      organizationId,
      actor,
      memberId: auth?.principal?.memberId ?? null,
      action: key,
      object: await objectOf(c, key.slice(key.indexOf(" ") + 1)),
      changes,
      address: ip ? coarseAddress(ip) : null,
    });
  } catch (err) {
    // The write happened; a lost entry is logged, never turned into a failed answer.
    console.error(
      JSON.stringify({ msg: "audit entry not recorded", action: key, error: String(err) }),
    );
  }
}

export const auditWrites: MiddlewareHandler<AppEnv> = (c, next) => audited(c, next);
