// A software WebAuthn authenticator for the worker's tests (the browser tests use Chromium's
// virtual authenticator): an ES256 key pair per credential, authenticator data and attestation
// objects built as the specification lays them out, answers as the browser's toJSON() writes
// them. It signs whatever it is told (origin, RP ID), so tests can also make wrong answers.
import { type CBORType, encodeCBOR } from "@levischuck/tiny-cbor";

export const b64url = (bytes: Uint8Array | ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const fromB64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

const sha256 = async (data: Uint8Array | string) =>
  new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      typeof data === "string" ? new TextEncoder().encode(data) : data,
    ),
  );

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** r ‖ s (WebCrypto) as the DER SEQUENCE WebAuthn carries. */
function rawToDer(raw: Uint8Array): Uint8Array {
  const int = (bytes: Uint8Array) => {
    let v = bytes;
    while (v.length > 1 && v[0] === 0 && v[1]! < 0x80) v = v.slice(1);
    if (v[0]! >= 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

export interface SoftCredential {
  id: string;
  keys: CryptoKeyPair;
  counter: number;
}

export interface Ceremony {
  origin: string;
  rpId: string;
}

function authenticatorData(
  rpIdHash: Uint8Array,
  flags: number,
  counter: number,
  rest = new Uint8Array(),
) {
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, counter);
  return concat(rpIdHash, new Uint8Array([flags]), count, rest);
}

/** navigator.credentials.create() for `options` (their challenge), as toJSON() answers it. */
export async function register(
  options: { challenge: string },
  ceremony: Ceremony,
): Promise<{ credential: SoftCredential; response: any }> {
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
  const idBytes = crypto.getRandomValues(new Uint8Array(16));
  const cose = encodeCBOR(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, fromB64url(jwk.x!)],
      [-3, fromB64url(jwk.y!)],
    ]),
  );
  const idLength = new Uint8Array([0, idBytes.length]);
  const attested = concat(new Uint8Array(16), idLength, idBytes, cose);
  const authData = authenticatorData(await sha256(ceremony.rpId), 0x45, 0, attested);
  const attestationObject = encodeCBOR(
    new Map<string, CBORType>([
      ["fmt", "none"],
      ["attStmt", new Map<string, CBORType>()],
      ["authData", authData],
    ]),
  );
  const clientData = JSON.stringify({
    type: "webauthn.create",
    challenge: options.challenge,
    origin: ceremony.origin,
    crossOrigin: false,
  });
  const id = b64url(idBytes);
  return {
    credential: { id, keys, counter: 0 },
    response: {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(new TextEncoder().encode(clientData)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    },
  };
}

/** navigator.credentials.get() with `credential` for `options` (their challenge). */
export async function assert(
  credential: SoftCredential,
  options: { challenge: string },
  ceremony: Ceremony,
  counter = credential.counter + 1,
): Promise<any> {
  credential.counter = counter;
  const authData = authenticatorData(await sha256(ceremony.rpId), 0x05, counter);
  const clientData = new TextEncoder().encode(
    JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: ceremony.origin }),
  );
  const signed = concat(authData, await sha256(clientData));
  const raw = new Uint8Array(
    await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      credential.keys.privateKey,
      signed,
    ),
  );
  return {
    id: credential.id,
    rawId: credential.id,
    type: "public-key",
    response: {
      clientDataJSON: b64url(clientData),
      authenticatorData: b64url(authData),
      signature: b64url(rawToDer(raw)),
      userHandle: null,
    },
    clientExtensionResults: {},
  };
}
