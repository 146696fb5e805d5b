// Minting playback tokens on the publisher's server (docs/api.md "Signed playback"): a JWT
// (JWS compact) for one video, signed with Web Crypto (Node 20+, Deno, Bun, Workers). The
// service verifies it with the playback key named by `keyId` (the token's `kid`).

/** A playback key as /v2/playback-keys made it: HS256 with its secret, or your private key. */
export type PlaybackSigningKey =
  | { keyId: string; algorithm: "HS256"; secret: string }
  | {
      keyId: string;
      algorithm: "RS256" | "ES256";
      /** The private half of the public key you uploaded: a CryptoKey, a JWK or PKCS#8 PEM. */
      privateKey: CryptoKey | JsonWebKey | string;
    };

export interface PlaybackTokenOptions {
  /** The video's content key. */
  contentKey: string;
  /** Seconds the token stays valid (default 3600); the player must be done by then. */
  expiresIn?: number;
  /** Only viewers in these countries (ISO 3166-1 alpha-2). */
  country?: string | string[];
  /** Only pages of this host (checked against Referer/Origin: browsers only). */
  referrer?: string;
  /** Your viewer id, carried in the token. */
  viewer?: string;
  /** The time to mint at (ms since the epoch; default now). */
  now?: number;
}

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

const ALGORITHMS = {
  HS256: { import: { name: "HMAC", hash: "SHA-256" }, sign: { name: "HMAC" } },
  RS256: {
    import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    sign: { name: "RSASSA-PKCS1-v1_5" },
  },
  ES256: {
    import: { name: "ECDSA", namedCurve: "P-256" },
    sign: { name: "ECDSA", hash: "SHA-256" },
  },
} as const;

async function signingKey(key: PlaybackSigningKey): Promise<CryptoKey> {
  const params = ALGORITHMS[key.algorithm].import;
  if (key.algorithm === "HS256")
    return crypto.subtle.importKey("raw", fromBase64url(key.secret), params, false, ["sign"]);
  const { privateKey } = key;
  if (typeof privateKey === "string") {
    const body = privateKey.replace(/-----(BEGIN|END) PRIVATE KEY-----|\s+/g, "");
    return crypto.subtle.importKey("pkcs8", fromBase64url(body), params, false, ["sign"]);
  }
  if ("type" in privateKey && privateKey instanceof CryptoKey) return privateKey;
  return crypto.subtle.importKey("jwk", privateKey as JsonWebKey, params, false, ["sign"]);
}

/** A playback token for `options.contentKey`: append it to a media, HLS or embed URL as ?token=. */
export async function mintPlaybackToken(
  key: PlaybackSigningKey,
  options: PlaybackTokenOptions,
): Promise<string> {
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  const header = { alg: key.algorithm, typ: "JWT", kid: key.keyId };
  const payload = {
    sub: options.contentKey,
    iat,
    exp: iat + (options.expiresIn ?? 3600),
    ...(options.country !== undefined && { country: options.country }),
    ...(options.referrer !== undefined && { referrer: options.referrer }),
    ...(options.viewer !== undefined && { viewer: options.viewer }),
  };
  const input = `${base64url(encoder.encode(JSON.stringify(header)))}.${base64url(encoder.encode(JSON.stringify(payload)))}`;
  const signature = await crypto.subtle.sign(
    ALGORITHMS[key.algorithm].sign,
    await signingKey(key),
    encoder.encode(input),
  );
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** `url` with the token added as ?token= (or &token=). */
export function withPlaybackToken(url: string, token: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
}
