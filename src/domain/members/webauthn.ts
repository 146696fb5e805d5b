// The relying party's checks of a WebAuthn ceremony (W3C WebAuthn Level 3, §7.1 registration,
// §7.2 authentication), on the platform's WebCrypto, with tiny-cbor (MIT, 2 KB) for CBOR.
//
// Why not @simplewebauthn/server in the worker: it runs in workerd (test/passkeys.test.ts uses it
// there as the oracle these checks must agree with) and is MIT, but it weighs 88 KB gzipped
// (its attestation formats pull an X.509 stack), and the worker's whole budget is 300 KB. The
// service asks for no attestation (`attestation: "none"`: it trusts the authenticator a member
// chose, as most relying parties do), so what is left to check is small and written here:
// the client data (type, challenge, origin), the authenticator data (RP ID hash, user present,
// the credential and its COSE key) and the assertion's signature and counter.
import { type CBORType, decodeCBOR, decodePartialCBOR } from "@levischuck/tiny-cbor";
import { base64url } from "../../shared/crypto";
import { invalid } from "../../shared/errors";
import { fromBase64url } from "../playback/tokens";

/** COSE algorithms the service accepts: ES256, EdDSA (Ed25519), RS256. */
export const COSE_ALGORITHMS = [-7, -8, -257] as const;

export interface Expected {
  challenge: string;
  origins: readonly string[];
  rpId: string;
}

export interface RegistrationResponse {
  id: string;
  rawId?: string;
  type: string;
  response: { clientDataJSON: string; attestationObject: string; transports?: string[] };
}

export interface AuthenticationResponse {
  id: string;
  rawId?: string;
  type: string;
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string | null;
  };
}

export interface RegisteredCredential {
  id: string;
  publicKey: string;
  algorithm: number;
  counter: number;
  transports: string[];
}

const refuse = (why: string) => invalid(`passkey refused: ${why}`);

function fromB64url(text: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw refuse(`${what} is not base64url`);
  try {
    return fromBase64url(text.replace(/=+$/, ""));
  } catch {
    throw refuse(`${what} is not base64url`);
  }
}

async function sha256(bytes: Uint8Array | string): Promise<Uint8Array> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

function checkClientData(
  encoded: string,
  type: "webauthn.create" | "webauthn.get",
  expected: Expected,
): Uint8Array {
  const bytes = fromB64url(encoded, "clientDataJSON");
  let data: { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw refuse("clientDataJSON is not JSON");
  }
  if (data.type !== type) throw refuse(`clientDataJSON.type must be ${type}`);
  if (data.challenge !== expected.challenge)
    throw refuse("the challenge is not the one the service gave");
  if (typeof data.origin !== "string" || !expected.origins.includes(data.origin))
    throw refuse(`origin ${String(data.origin).slice(0, 100)} is not this service's`);
  if (data.crossOrigin === true) throw refuse("made inside a frame of another site");
  return bytes;
}

interface AuthenticatorData {
  rpIdHash: Uint8Array;
  flags: number;
  counter: number;
  credentialId?: Uint8Array;
  publicKey?: Uint8Array;
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_ATTESTED_CREDENTIAL = 0x40;

function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  if (bytes.length < 37) throw refuse("authenticator data is too short");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parsed: AuthenticatorData = {
    rpIdHash: bytes.slice(0, 32),
    flags: bytes[32]!,
    counter: view.getUint32(33),
  };
  if (parsed.flags & FLAG_ATTESTED_CREDENTIAL) {
    if (bytes.length < 55) throw refuse("attested credential data is too short");
    const idLength = view.getUint16(53);
    const keyStart = 55 + idLength;
    if (idLength === 0 || idLength > 1023 || keyStart >= bytes.length)
      throw refuse("the credential id does not fit the authenticator data");
    parsed.credentialId = bytes.slice(55, keyStart);
    let keyLength: number;
    try {
      [, keyLength] = decodePartialCBOR(bytes, keyStart);
    } catch {
      throw refuse("the credential public key is not CBOR");
    }
    parsed.publicKey = bytes.slice(keyStart, keyStart + keyLength);
  }
  return parsed;
}

async function checkAuthenticatorData(data: AuthenticatorData, rpId: string) {
  if (!sameBytes(data.rpIdHash, await sha256(rpId)))
    throw refuse(`made for another site than ${rpId}`);
  if (!(data.flags & FLAG_USER_PRESENT)) throw refuse("the user was not present");
}

type CoseKey = Map<number, CBORType>;

function coseKey(bytes: Uint8Array): CoseKey {
  let key: CBORType;
  try {
    key = decodeCBOR(bytes);
  } catch {
    throw refuse("the credential public key is not CBOR");
  }
  if (!(key instanceof Map)) throw refuse("the credential public key is not a COSE key");
  return key as CoseKey;
}

function bytesAt(key: CoseKey, label: number): Uint8Array {
  const value = key.get(label);
  if (!(value instanceof Uint8Array)) throw refuse("the COSE key lacks a parameter");
  return value;
}

/** The COSE key as a WebCrypto key and the verify algorithm it needs. */
async function importCoseKey(bytes: Uint8Array) {
  const key = coseKey(bytes);
  const kty = key.get(1);
  const alg = key.get(3);
  const crv = key.get(-1);
  if (alg === -7 && kty === 2 && crv === 1) {
    const jwk = {
      kty: "EC",
      crv: "P-256",
      x: base64url(bytesAt(key, -2)),
      y: base64url(bytesAt(key, -3)),
    };
    const imported = await crypto.subtle.importKey(
      "jwk",
      jwk,
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    return { alg, key: imported, verify: { name: "ECDSA", hash: "SHA-256" }, der: true };
  }
  if (alg === -8 && kty === 1 && crv === 6) {
    const jwk = { kty: "OKP", crv: "Ed25519", x: base64url(bytesAt(key, -2)) };
    const imported = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, [
      "verify",
    ]);
    return { alg, key: imported, verify: { name: "Ed25519" }, der: false };
  }
  if (alg === -257 && kty === 3) {
    const jwk = { kty: "RSA", n: base64url(bytesAt(key, -1)), e: base64url(bytesAt(key, -2)) };
    const imported = await crypto.subtle.importKey(
      "jwk",
      jwk,
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["verify"],
    );
    return { alg, key: imported, verify: { name: "RSASSA-PKCS1-v1_5" }, der: false };
  }
  throw refuse(`COSE algorithm ${String(alg)} is not supported (ES256, EdDSA, RS256 are)`);
}

/** An ECDSA signature in DER (SEQUENCE of two INTEGERs) as WebCrypto's r ‖ s of 32 bytes each. */
function derToRaw(der: Uint8Array): Uint8Array {
  const fail = () => refuse("the signature is not DER");
  let at = 0;
  const read = (tag: number) => {
    if (der[at++] !== tag) throw fail();
    let length = der[at++]!;
    if (length & 0x80) {
      const n = length & 0x7f;
      if (n !== 1) throw fail();
      length = der[at++]!;
    }
    const value = der.slice(at, at + length);
    if (value.length !== length) throw fail();
    at += length;
    return value;
  };
  const inner = read(0x30);
  if (at !== der.length) throw fail();
  const integers: Uint8Array[] = [];
  let pos = 0;
  while (pos < inner.length) {
    if (inner[pos++] !== 0x02) throw fail();
    const length = inner[pos++]!;
    integers.push(inner.slice(pos, pos + length));
    pos += length;
  }
  if (integers.length !== 2 || pos !== inner.length) throw fail();
  const raw = new Uint8Array(64);
  integers.forEach((int, i) => {
    let value = int;
    while (value.length > 32 && value[0] === 0) value = value.slice(1);
    if (value.length > 32) throw fail();
    raw.set(value, i * 32 + (32 - value.length));
  });
  return raw;
}

/** Registration (§7.1): the new credential, to be stored, or a 400 naming what is wrong. */
export async function verifyRegistration(
  response: RegistrationResponse,
  expected: Expected,
): Promise<RegisteredCredential> {
  if (response.type !== "public-key") throw refuse("type must be public-key");
  checkClientData(response.response.clientDataJSON, "webauthn.create", expected);
  let attestation: CBORType;
  try {
    attestation = decodeCBOR(fromB64url(response.response.attestationObject, "attestationObject"));
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("passkey refused")) throw err;
    throw refuse("attestationObject is not CBOR");
  }
  const authData = attestation instanceof Map ? attestation.get("authData") : undefined;
  if (!(authData instanceof Uint8Array)) throw refuse("attestationObject lacks authData");
  const data = parseAuthenticatorData(authData);
  await checkAuthenticatorData(data, expected.rpId);
  if (!data.credentialId || !data.publicKey) throw refuse("no credential was made");
  const id = base64url(data.credentialId);
  if (id !== response.id.replace(/=+$/, "")) throw refuse("the id is not the credential's");
  const { alg } = await importCoseKey(data.publicKey);
  return {
    id,
    publicKey: base64url(data.publicKey),
    algorithm: alg,
    counter: data.counter,
    transports: (response.response.transports ?? []).filter((t) => /^[a-z-]{1,20}$/.test(t)),
  };
}

/** Authentication (§7.2) against the stored credential: its new counter, or a 400 naming what is wrong. */
export async function verifyAuthentication(
  response: AuthenticationResponse,
  expected: Expected,
  credential: { publicKey: string; counter: number },
): Promise<{ counter: number }> {
  if (response.type !== "public-key") throw refuse("type must be public-key");
  const clientData = checkClientData(response.response.clientDataJSON, "webauthn.get", expected);
  const authData = fromB64url(response.response.authenticatorData, "authenticatorData");
  const data = parseAuthenticatorData(authData);
  await checkAuthenticatorData(data, expected.rpId);
  const { key, verify, der } = await importCoseKey(fromB64url(credential.publicKey, "publicKey"));
  const given = fromB64url(response.response.signature, "signature");
  const signature = der ? derToRaw(given) : given;
  const signed = new Uint8Array(authData.length + 32);
  signed.set(authData);
  signed.set(await sha256(clientData), authData.length);
  if (!(await crypto.subtle.verify(verify, key, signature, signed)))
    throw refuse("the signature does not verify");
  // A counter that does not move on from a non-zero one means a cloned authenticator (§6.1.1).
  if ((data.counter !== 0 || credential.counter !== 0) && data.counter <= credential.counter)
    throw refuse("the authenticator's counter went back (a cloned authenticator?)");
  return { counter: data.counter };
}
