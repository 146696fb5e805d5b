// Hashing, HMAC, constant-time comparison and random identifiers, with the platform's Web
// Crypto. Every layer may import this module; it imports nothing of the application.

const encoder = new TextEncoder();

/** "00".."ff" by byte value: hex() runs once per hash, tens of thousands of times in a feed pass. */
const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function hex(bytes: ArrayBuffer): string {
  let out = "";
  for (const b of new Uint8Array(bytes)) out += HEX_BYTES[b];
  return out;
}

/** Standard base64 (RFC 4648 §4) of bytes. */
export function base64(bytes: ArrayBuffer | Uint8Array): string {
  let bin = "";
  for (const b of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The bytes of standard base64 text (throws on text that is not base64). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export function base64url(bytes: ArrayBuffer | Uint8Array): string {
  return base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Lowercase hex SHA-256 of a string (UTF-8) or of bytes. */
export async function sha256Hex(value: string | ArrayBuffer | Uint8Array): Promise<string> {
  const bytes = typeof value === "string" ? encoder.encode(value) : value;
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    // Secrets are few (one signing secret per deployment, a handful of webhook secrets).
    if (hmacKeys.size > 100) hmacKeys.clear();
    hmacKeys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 of `payload` under `secret`, as raw bytes. */
export async function hmacSha256(secret: string, payload: string): Promise<ArrayBuffer> {
  return crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(payload));
}

/** Constant-time comparison of two strings (lengths are not secret: compare hashes or fixed-length values). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.byteLength !== bb.byteLength) return false;
  return crypto.subtle.timingSafeEqual(ab, bb);
}

/** `bytes` random bytes, base64url (32 bytes: 256 bits, 43 characters). */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Random letters and digits (rejection sampling keeps the distribution uniform). */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < 248 && out.length < length) out += ALNUM[b % 62];
    }
  }
  return out;
}
