// API tokens (docs/api.md "API tokens"): members make personal tokens, the API key and secret
// make application tokens; each has a scope (read, content, reports, full) narrowing the rights
// of whoever made it, an expiry, and a secret shown once (the database keeps its SHA-256).
// The organization's own token (issued with the organization, rotated with its credentials)
// is kept as it was: full, never expiring.
import {
  type ApiTokenRow,
  deleteToken,
  findTokenCredential,
  insertToken,
  listTokens,
  type TokenCredential,
} from "../../db/api-tokens";
import { randomToken, sha256Hex } from "../../shared/crypto";
import { forbidden, notFound } from "../../shared/errors";
import type { MemberRole, TokenScope } from "../../shared/vocabulary";
import type { Deps } from "../deps";
import { forgetOrganization, keptLookup, type LookupDeps } from "../kept-lookups";
import { type Principal, principal } from "../members/principal";

/** Secrets start with this prefix, so a leaked one is recognisable (secret scanners). */
export const TOKEN_PREFIX = "evc_";

/** How long a token may live: a year at most. */
export const TOKEN_MAX_SECONDS = 366 * 86_400;

export interface TokenView {
  id: string;
  name: string;
  scope: TokenScope;
  kind: ApiTokenRow["kind"];
  createdAt: string;
  expiresAt: string | null;
}

const view = (row: ApiTokenRow): TokenView => ({
  id: `tok_${row.id}`,
  name: row.name,
  scope: row.scope,
  kind: row.kind,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
});

function tokenIdOf(id: string): number {
  const n = /^tok_(\d{1,15})$/.exec(id)?.[1];
  if (!n) throw notFound(`no token ${id.slice(0, 40)}`);
  return Number(n);
}

/** The token behind a bearer secret (kept in the isolate like every credential lookup). */
export async function tokenCredential(
  deps: LookupDeps,
  secret: string,
): Promise<TokenCredential | null> {
  const hash = await sha256Hex(secret);
  return keptLookup(deps, `tokencred\u0000${hash}`, () => findTokenCredential(deps.db, hash));
}

/**
 * What a token may do, or why not (null, with a reason for the 401): expired, or its member
 * suspended. A member's token holds at most the member's role.
 */
export function tokenPrincipal(
  token: TokenCredential,
  nowMs: number,
): { principal: Principal } | { refused: string } {
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= nowMs)
    return { refused: `authentication failed: the API token expired at ${token.expiresAt}` };
  if (token.member && token.member.status !== "active")
    return { refused: "authentication failed: the member of this API token is suspended" };
  const actor = {
    type: "token" as const,
    id: `tok_${token.id}`,
    name: token.member ? `${token.name} (${token.member.name})` : token.name,
  };
  return {
    principal: principal(
      actor,
      token.member?.id ?? null,
      (token.member?.role as MemberRole | undefined) ?? null,
      token.scope,
    ),
  };
}

export async function createToken(
  deps: Pick<Deps, "db" | "now">,
  organizationId: number,
  creator: Principal,
  input: { name: string; scope: TokenScope; expiresIn: number },
) {
  if (creator.scope !== null && creator.scope !== "full")
    throw forbidden(`a token of scope ${creator.scope} cannot make tokens (full can)`);
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  const row = await insertToken(deps.db, {
    organizationId,
    tokenHash: await sha256Hex(token),
    createdAt: deps.now.toISOString(),
    name: input.name,
    kind: creator.memberId === null ? "application" : "member",
    scope: input.scope,
    memberId: creator.memberId,
    expiresAt: new Date(deps.now.getTime() + input.expiresIn * 1000).toISOString(),
  });
  return { ...view(row), token };
}

export async function listOwnTokens(
  deps: Pick<Deps, "db">,
  organizationId: number,
  who: Principal,
) {
  return (await listTokens(deps.db, organizationId, who.memberId)).map(view);
}

/** Revokes at once (in this isolate; others within CREDENTIAL_CACHE_SECONDS). */
export async function revokeToken(
  deps: Pick<Deps, "db">,
  organizationId: number,
  who: Principal,
  id: string,
) {
  const row = await deleteToken(deps.db, organizationId, who.memberId, tokenIdOf(id));
  if (!row) throw notFound(`no token ${id.slice(0, 40)} of yours`);
  forgetOrganization(organizationId);
  return view(row);
}
