// Credentials: generated with the platform CSPRNG, stored as SHA-256 hashes, compared in
// constant time. A fast hash is adequate because generated secrets carry 256 bits of entropy
// (they are not passwords); the demo secrets exist only in local databases.

const encoder = new TextEncoder();

export function randomToken(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let bin = "";
  for (const b of buf) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two strings (lengths are not secret: hashes have a fixed length). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.byteLength !== bb.byteLength) return false;
  return crypto.subtle.timingSafeEqual(ab, bb);
}

export interface IssuedCredentials {
  syncCode: string;
  apiKey: string;
  apiSecret: string;
  apiToken: string;
}

export function generateCredentials(): IssuedCredentials {
  return {
    syncCode: `sc_${randomAlphanumeric(20)}`,
    apiKey: `ak_${randomAlphanumeric(20)}`,
    apiSecret: `as_${randomToken(32)}`,
    apiToken: `at_${randomToken(32)}`,
  };
}
