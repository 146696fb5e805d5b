// Values the service must read back but must not store in the clear (webhook signing secrets:
// signing needs the secret itself, so a hash would not do). AES-256-GCM under a key derived
// with HKDF-SHA256 from SIGNING_SECRET and the purpose; `context` (e.g. the row's public id) is
// authenticated too, so a sealed value copied onto another row does not open. A database dump
// alone reveals nothing; rotating SIGNING_SECRET makes sealed values unreadable.
import { base64url } from "./crypto";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const keys = new Map<string, Promise<CryptoKey>>();

function sealingKey(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\n${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          {
            name: "HKDF",
            hash: "SHA-256",
            salt: encoder.encode("edge-video-catalog/sealed/v1"),
            info: encoder.encode(purpose),
          },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    if (keys.size > 20) keys.clear();
    keys.set(id, key);
  }
  return key;
}

function fromBase64url(text: string): Uint8Array {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** "v1.<iv>.<ciphertext>" (base64url). */
export async function seal(
  secret: string,
  purpose: string,
  plaintext: string,
  context: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await sealingKey(secret, purpose),
    encoder.encode(plaintext),
  );
  return `v1.${base64url(iv)}.${base64url(sealed)}`;
}

/** The plaintext of `seal`; throws when the value, the key or the context does not match. */
export async function unseal(
  secret: string,
  purpose: string,
  sealed: string,
  context: string,
): Promise<string> {
  const [version, iv, data] = sealed.split(".");
  if (version !== "v1" || !iv || !data) throw new Error("not a sealed value");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64url(iv), additionalData: encoder.encode(context) },
    await sealingKey(secret, purpose),
    fromBase64url(data),
  );
  return decoder.decode(plain);
}
