// Playback tokens: JWS compact (JWT) verification with Web Crypto, written here rather than
// taken from a library because the service needs only three algorithms and strict checks (no
// `none`, no algorithm chosen by the token: the key fixes it), and must run in workerd.

import type { PlaybackKeyAlgorithm } from "../../db/playback-keys";
import { type Refusal, refused } from "../../shared/errors";

/** A key a token may be signed with: its algorithm is the key's, never the token's choice. */
export interface VerifyingKey {
  algorithm: PlaybackKeyAlgorithm;
  key: CryptoKey;
}

/** What a verified token says (docs/api.md "Signed playback"). */
export interface PlaybackClaims {
  /** The content key the token plays. */
  sub: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  nbf?: number;
  /** The countries (ISO 3166-1 alpha-2) the token plays in. */
  country?: string[];
  /** The host whose pages may play it (Referer/Origin). */
  referrer?: string;
  /** The publisher's viewer id (carried, not checked). */
  viewer?: string;
}

/** What a request offers for the checks beside the signature. */
export interface PlaybackRequest {
  contentKey: string;
  nowMs: number;
  country: string | null;
  /** Host of the request's Referer (else Origin); null when it sent neither. */
  referrerHost: string | null;
  /** The service's own host: media asked by its embed page carry it as their Referer. */
  serviceHost: string;
}

export const MAX_TOKEN_LENGTH = 4096;
const PART = /^[A-Za-z0-9_-]+$/;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export const ALGORITHMS: Record<
  PlaybackKeyAlgorithm,
  {
    import: { name: string; hash?: string; namedCurve?: string };
    verify: string | { name: string; hash: string };
  }
> = {
  HS256: { import: { name: "HMAC", hash: "SHA-256" }, verify: "HMAC" },
  RS256: {
    import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    verify: "RSASSA-PKCS1-v1_5",
  },
  ES256: {
    import: { name: "ECDSA", namedCurve: "P-256" },
    verify: { name: "ECDSA", hash: "SHA-256" },
  },
};

export function fromBase64url(text: string): Uint8Array {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

const refuse = (why: string, refusal: Refusal = "token_invalid") =>
  refused(refusal, `playback token ${why}`);

function jsonPart(part: string, name: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(fromBase64url(part)));
  } catch {
    throw refuse(`malformed: its ${name} is not base64url JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw refuse(`malformed: its ${name} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The `kid` a token names, read before its key is looked up (nothing is trusted yet). */
export function tokenKeyId(token: string): string {
  if (token.length > MAX_TOKEN_LENGTH)
    throw refuse(`malformed: longer than ${MAX_TOKEN_LENGTH} characters`);
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => PART.test(p)))
    throw refuse("malformed: not a JWS compact token (header.payload.signature, base64url)");
  const header = jsonPart(parts[0]!, "header");
  if (typeof header.kid !== "string" || header.kid === "")
    throw refuse("has no kid in its header: name the playback key it is signed with");
  return header.kid;
}

function stringList(value: unknown): string[] | null {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string"))
    return value as string[];
  return null;
}

/**
 * Verifies `token` with the key its kid names (`keys`: the organization's active keys) and checks
 * its claims against the request; throws a 403 DomainError saying what is wrong.
 */
export async function verifyPlaybackToken(
  token: string,
  keys: ReadonlyMap<string, VerifyingKey>,
  request: PlaybackRequest,
): Promise<PlaybackClaims> {
  const kid = tokenKeyId(token);
  const [headerPart, payloadPart, signaturePart] = token.split(".") as [string, string, string];
  const header = jsonPart(headerPart, "header");
  const key = keys.get(kid);
  if (!key)
    throw refuse(
      `is signed with an unknown key ${kid.slice(0, 40)}: not a playback key of this video's organization (deleted?)`,
    );
  if (header.alg !== key.algorithm)
    throw refuse(
      `algorithm ${String(header.alg).slice(0, 16)} is not its key's (${key.algorithm})`,
    );
  if (header.crit !== undefined)
    throw refuse("has crit header parameters, which are not supported");
  const valid = await crypto.subtle.verify(
    ALGORITHMS[key.algorithm].verify,
    key.key,
    fromBase64url(signaturePart),
    encoder.encode(`${headerPart}.${payloadPart}`),
  );
  if (!valid) throw refuse("signature does not verify (tampered, or signed with another key)");
  const payload = jsonPart(payloadPart, "payload");
  if (typeof payload.sub !== "string") throw refuse("has no sub: the content key it plays");
  if (typeof payload.exp !== "number" || !Number.isFinite(payload.exp))
    throw refuse("has no exp: every token must expire (seconds since the epoch)");
  const now = request.nowMs / 1000;
  if (payload.exp <= now)
    throw refuse(`expired at ${new Date(payload.exp * 1000).toISOString()}`, "token_expired");
  if (payload.nbf !== undefined) {
    if (typeof payload.nbf !== "number") throw refuse("nbf must be a number");
    if (payload.nbf > now)
      throw refuse(`is not valid before ${new Date(payload.nbf * 1000).toISOString()}`);
  }
  if (payload.sub !== request.contentKey)
    throw refuse(`is for video ${payload.sub.slice(0, 16)}, not ${request.contentKey}`);
  const claims: PlaybackClaims = { sub: payload.sub, exp: payload.exp };
  if (payload.country !== undefined) {
    const countries = stringList(payload.country)?.map((c) => c.toUpperCase());
    if (!countries || !countries.every((c) => /^[A-Z]{2}$/.test(c)))
      throw refuse("country must be an ISO 3166-1 alpha-2 code or a list of them");
    if (!request.country || !countries.includes(request.country))
      throw refuse(
        `is for ${countries.join(", ")}; this request comes from ${request.country ?? "an unknown country"}`,
        "country",
      );
    claims.country = countries;
  }
  if (payload.referrer !== undefined) {
    if (typeof payload.referrer !== "string") throw refuse("referrer must be a host name");
    const allowed = payload.referrer.toLowerCase();
    const from = request.referrerHost;
    if (from !== allowed && from !== request.serviceHost)
      throw refuse(
        `is for pages of ${allowed.slice(0, 100)}; this request's Referer is ${from ? from.slice(0, 100) : "absent"}`,
        "site",
      );
    claims.referrer = allowed;
  }
  if (typeof payload.viewer === "string") claims.viewer = payload.viewer;
  return claims;
}
