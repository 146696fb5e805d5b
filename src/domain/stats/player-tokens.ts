// Signed player tokens (opt-in per organization): the sync code is public, so an organization
// may require every event batch to carry a short-lived token that its own server mints with
// its API secret. The server never stores the secret; it keeps the token key derived from it
// when the secret is issued:
//
//   key   = hex(SHA-256("player-token:v1:" + apiSecret))
//   token = "v1." + expires + "." + (contentKey or "*") + "." +
//           base64url(HMAC-SHA256(key, "v1." + organizationKey + "." + expires + "." + (contentKey or "*")))
//
// expires is Unix seconds, at most PLAYER_TOKEN_MAX_TTL_SECONDS ahead; a token bound to a
// content key covers events of that video only. docs/statistics.md shows how to mint one.
import { base64url, constantTimeEqual, hmacSha256, sha256Hex } from "../../shared/crypto";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

export const PLAYER_TOKEN_MAX_TTL_SECONDS = 24 * 3600;
/** Clock skew tolerated between the publisher's server and ours. */
const SKEW_SECONDS = 300;

export function playerTokenKey(apiSecret: string): Promise<string> {
  return sha256Hex(`player-token:v1:${apiSecret}`);
}

const payload = (organizationKey: string, expires: number, contentKey: string) =>
  `v1.${organizationKey}.${expires}.${contentKey}`;

export async function mintPlayerToken(
  key: string,
  organizationKey: string,
  expires: number,
  contentKey?: string,
): Promise<string> {
  const ck = contentKey ?? "*";
  return `v1.${expires}.${ck}.${base64url(await hmacSha256(key, payload(organizationKey, expires, ck)))}`;
}

export type TokenCheck = { ok: true; contentKey: string | null } | { ok: false; reason: string };

export async function verifyPlayerToken(
  key: string,
  organizationKey: string,
  token: string,
  nowSeconds: number,
): Promise<TokenCheck> {
  const m = /^v1\.(\d{1,12})\.([A-Za-z0-9]{1,8}|\*)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m)
    return {
      ok: false,
      reason: "player token is malformed (v1.<expires>.<contentKey|*>.<signature>)",
    };
  const [, exp, ck] = m;
  const expires = Number(exp);
  const expected = await mintPlayerToken(
    key,
    organizationKey,
    expires,
    ck === "*" ? undefined : ck,
  );
  if (!constantTimeEqual(expected, token))
    return { ok: false, reason: "player token signature does not match" };
  if (expires < nowSeconds) return { ok: false, reason: "player token expired" };
  if (expires > nowSeconds + PLAYER_TOKEN_MAX_TTL_SECONDS + SKEW_SECONDS) {
    return {
      ok: false,
      reason: `player token lives longer than ${PLAYER_TOKEN_MAX_TTL_SECONDS} seconds`,
    };
  }
  return { ok: true, contentKey: ck === "*" || !CONTENT_KEY_PATTERN.test(ck!) ? null : ck! };
}
