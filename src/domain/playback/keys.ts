// Signed playback: the organizations' playback signing keys (created, listed, deleted through
// /v2/playback-keys), the organization's setting, and the check a media request passes
// (middleware/signed-playback.ts). Player traffic asks the check for every segment, so a
// video's rule (read with the media gate's record: ../files.ts) and an organization's imported
// keys are kept in the isolate for RULE_TTL_MS: a change reaches other isolates within that bound
// (at once in the isolate that made it).
import type { Db } from "../../db/client";
import {
  deletePlaybackKey,
  insertPlaybackKey,
  organizationSignedPlayback,
  type PlaybackKeyAlgorithm,
  type PlaybackKeyRow,
  playbackKeysOf,
  playbackRuleOf,
  setOrganizationSignedPlayback,
} from "../../db/playback-keys";
import { base64url, randomAlphanumeric, randomToken } from "../../shared/crypto";
import { conflict, DomainError, invalid, notFound, refused } from "../../shared/errors";
import { seal, unseal } from "../../shared/sealed";
import { playbackRule } from "../files";
import { applyIsolateEffects } from "../isolate-effects";
import { keptKeys, RULE_TTL_MS } from "./kept-keys";
import {
  ALGORITHMS,
  fromBase64url,
  type PlaybackClaims,
  type PlaybackRequest,
  tokenKeyId,
  type VerifyingKey,
  verifyPlaybackToken,
} from "./tokens";

export const MAX_PLAYBACK_KEYS = 10;
const SEAL_PURPOSE = "playback-key-secret";

export interface PlaybackKeyView {
  keyId: string;
  algorithm: PlaybackKeyAlgorithm;
  name: string;
  /** RS256/ES256: the public key as uploaded (JWK). */
  publicKey: JsonWebKey | null;
  createdAt: string;
}

const view = (row: PlaybackKeyRow): PlaybackKeyView => ({
  keyId: row.keyId,
  algorithm: row.algorithm,
  name: row.name,
  publicKey: row.publicKey ? (JSON.parse(row.publicKey) as JsonWebKey) : null,
  createdAt: row.createdAt,
});

/**
 * After a write to an organization's keys or setting: its kept keys and its videos' rules are
 * dropped in this isolate (isolate-effects.ts), elsewhere within RULE_TTL_MS.
 */
const playbackChanged = (organizationId: number) =>
  applyIsolateEffects({ playback: [organizationId] });

function pemBody(pem: string): Uint8Array | null {
  const match = /^-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----\s*$/.exec(
    pem.trim(),
  );
  if (!match) return null;
  try {
    return Uint8Array.from(atob(match[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Imports an uploaded public key (JWK or PEM SPKI) for `algorithm`, or says what is wrong. */
async function importPublicKey(
  algorithm: "RS256" | "ES256",
  uploaded: string | JsonWebKey,
): Promise<CryptoKey> {
  const params = ALGORITHMS[algorithm].import;
  let key: CryptoKey;
  try {
    if (typeof uploaded === "string") {
      const der = pemBody(uploaded);
      if (!der)
        throw invalid(
          "publicKey: a PEM must be one -----BEGIN PUBLIC KEY----- block (SubjectPublicKeyInfo)",
        );
      key = await crypto.subtle.importKey("spki", der, params, true, ["verify"]);
    } else {
      if (uploaded.d !== undefined)
        throw invalid("publicKey: this JWK holds a private key; upload the public key only");
      const kty = algorithm === "RS256" ? "RSA" : "EC";
      if (uploaded.kty !== kty) throw invalid(`publicKey: an ${algorithm} JWK has kty ${kty}`);
      if (algorithm === "ES256" && uploaded.crv !== "P-256")
        throw invalid("publicKey: an ES256 JWK has crv P-256");
      const { kty: _k, n, e, crv, x, y } = uploaded;
      key = await crypto.subtle.importKey(
        "jwk",
        kty === "RSA" ? { kty, n, e } : { kty, crv, x, y },
        params,
        true,
        ["verify"],
      );
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw invalid(
      `publicKey: not an ${algorithm} public key (${(err as Error).message.slice(0, 80)})`,
    );
  }
  if (algorithm === "RS256") {
    const bits = (key.algorithm as { modulusLength: number }).modulusLength;
    if (bits < 2048) throw invalid(`publicKey: an RSA key has at least 2048 bits, not ${bits}`);
  }
  return key;
}

export type NewPlaybackKey =
  | { algorithm: "HS256"; name?: string }
  | { algorithm: "RS256" | "ES256"; publicKey: string | JsonWebKey; name?: string };

/** Creates a key; an HS256 key's secret (base64url, 32 bytes) is in this answer only. */
export async function createPlaybackKey(
  db: Db,
  signingSecret: string,
  organizationId: number,
  input: NewPlaybackKey,
  now: Date,
): Promise<PlaybackKeyView & { secret?: string }> {
  const existing = await playbackKeysOf(db, organizationId);
  if (existing.length >= MAX_PLAYBACK_KEYS)
    throw conflict(
      `at most ${MAX_PLAYBACK_KEYS} playback keys: delete one no longer used before creating another`,
    );
  const keyId = `pk_${randomAlphanumeric(20)}`;
  let secret: string | undefined;
  let sealed: string | null = null;
  let publicKey: string | null = null;
  if (input.algorithm === "HS256") {
    secret = randomToken(32);
    sealed = await seal(signingSecret, SEAL_PURPOSE, secret, keyId);
  } else {
    const key = await importPublicKey(input.algorithm, input.publicKey);
    const jwk = (await crypto.subtle.exportKey("jwk", key)) as JsonWebKey;
    publicKey = JSON.stringify(
      jwk.kty === "RSA"
        ? { kty: jwk.kty, n: jwk.n, e: jwk.e }
        : { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
    );
  }
  const row = await insertPlaybackKey(db, {
    keyId,
    organizationId,
    algorithm: input.algorithm,
    secret: sealed,
    publicKey,
    name: input.name ?? "",
    createdAt: now.toISOString(),
  });
  playbackChanged(organizationId);
  return { ...view(row), ...(secret !== undefined && { secret }) };
}

export async function listPlaybackKeys(db: Db, organizationId: number): Promise<PlaybackKeyView[]> {
  return (await playbackKeysOf(db, organizationId)).map(view);
}

export async function removePlaybackKey(
  db: Db,
  organizationId: number,
  keyId: string,
): Promise<void> {
  // The last key while signed playback is on: no token could play any video.
  const keys = await playbackKeysOf(db, organizationId);
  if (
    keys.length === 1 &&
    keys[0]!.keyId === keyId &&
    (await organizationSignedPlayback(db, organizationId))
  )
    throw conflict(
      "the last playback key while signed playback is on: create another key, or switch signed playback off (PUT /v2/playback-settings) first",
    );
  if (!(await deletePlaybackKey(db, organizationId, keyId)))
    throw notFound(`no playback key ${keyId.slice(0, 40)}`);
  playbackChanged(organizationId);
}

export async function playbackSettings(
  db: Db,
  organizationId: number,
): Promise<{ signedPlayback: boolean }> {
  return { signedPlayback: await organizationSignedPlayback(db, organizationId) };
}

/** Switching signed playback on needs a key to sign with (else every video stops playing). */
export async function setPlaybackSettings(
  db: Db,
  organizationId: number,
  signedPlayback: boolean,
): Promise<{ signedPlayback: boolean }> {
  if (signedPlayback && (await playbackKeysOf(db, organizationId)).length === 0)
    throw conflict("signedPlayback: create a playback key (POST /v2/playback-keys) first");
  await setOrganizationSignedPlayback(db, organizationId, signedPlayback);
  playbackChanged(organizationId);
  return { signedPlayback };
}

async function importedKeys(
  rows: PlaybackKeyRow[],
  signingSecret: string,
): Promise<Map<string, VerifyingKey>> {
  const keys = new Map<string, VerifyingKey>();
  for (const row of rows) {
    const params = ALGORITHMS[row.algorithm].import;
    // A secret sealed under an earlier SIGNING_SECRET no longer opens: the key verifies
    // nothing (its tokens get "unknown key"), rather than failing every request with a 500.
    const key = await (row.algorithm === "HS256"
      ? unseal(signingSecret, SEAL_PURPOSE, row.secret!, row.keyId).then((secret) =>
          crypto.subtle.importKey("raw", fromBase64url(secret), params, false, ["verify"]),
        )
      : crypto.subtle.importKey("jwk", JSON.parse(row.publicKey!) as JsonWebKey, params, false, [
          "verify",
        ])
    ).catch(() => null);
    if (key) keys.set(row.keyId, { algorithm: row.algorithm, key });
  }
  return keys;
}

function keysOf(db: Db, signingSecret: string, organizationId: number, nowMs: number) {
  const cached = keptKeys.get(String(organizationId), nowMs);
  if (cached) return cached;
  const keys = playbackKeysOf(db, organizationId).then((rows) => importedKeys(rows, signingSecret));
  keptKeys.set(String(organizationId), keys, RULE_TTL_MS, nowMs);
  // A failed read is not kept.
  keys.catch(() => {
    keptKeys.deleteWhere((key, kept) => key === String(organizationId) && kept === keys);
  });
  return keys;
}

/**
 * The check of a media request: null when the video needs no token (or has no content: the
 * servable check answers that), the verified claims when it needs one and `token` is good;
 * throws a 403 DomainError when it needs one and `token` is absent or not good.
 */
export async function checkPlayback(
  db: Db,
  signingSecret: string,
  token: string | undefined,
  request: PlaybackRequest,
): Promise<PlaybackClaims | null> {
  const rule = await playbackRule(db, request.contentKey, request.nowMs);
  if (!rule?.signed) return null;
  if (token === undefined || token === "")
    throw refused(
      "token_required",
      `playback token required: video ${request.contentKey} plays only with ?token= signed with one of its organization's playback keys`,
    );
  tokenKeyId(token); // malformed tokens are refused before any key is read
  const keys = await keysOf(db, signingSecret, rule.organizationId, request.nowMs);
  return verifyPlaybackToken(token, keys, request);
}

const json64 = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/**
 * A token minted by the service (the console's preview, a quick test): signed with the
 * organization's newest HS256 key, the only kind whose secret the service holds.
 */
export async function mintServiceToken(
  db: Db,
  signingSecret: string,
  organizationId: number,
  contentKey: string,
  nowMs: number,
  expiresIn: number,
): Promise<{ token: string; expiresAt: string }> {
  const rule = await playbackRuleOf(db, contentKey);
  if (rule?.organizationId !== organizationId) throw notFound(`no video ${contentKey}`);
  const row = (await playbackKeysOf(db, organizationId))
    .filter((k) => k.algorithm === "HS256")
    .at(-1);
  if (!row)
    throw conflict(
      "no HS256 playback key: the service signs only with a secret it holds; mint the token on your server with your private key",
    );
  const secret = await unseal(signingSecret, SEAL_PURPOSE, row.secret!, row.keyId).catch(() => {
    throw conflict(
      `playback key ${row.keyId} no longer opens (the service's SIGNING_SECRET changed): create a new key`,
    );
  });
  const exp = Math.floor(nowMs / 1000) + expiresIn;
  const input = `${json64({ alg: "HS256", typ: "JWT", kid: row.keyId })}.${json64({ sub: contentKey, iat: Math.floor(nowMs / 1000), exp })}`;
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64url(secret),
    ALGORITHMS.HS256.import,
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input));
  return {
    token: `${input}.${base64url(signature)}`,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}
