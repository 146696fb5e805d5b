// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is "whsec_" +
// base64 of 32 random bytes; each attempt is signed with HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64 signature>"; during a secret
// rotation both secrets sign, space-separated, so receivers holding either one verify.
import { base64, fromBase64 } from "../../shared/crypto";
import { seal, unseal } from "../../shared/sealed";

const encoder = new TextEncoder();
const PREFIX = "whsec_";
/** Purpose of the sealing key (shared/sealed.ts): only webhook secrets are sealed under it. */
const SEAL_PURPOSE = "webhook-signing-secret";

export function newWebhookSecret(): string {
  return PREFIX + base64(crypto.getRandomValues(new Uint8Array(32)));
}

function secretBytes(secret: string): Uint8Array {
  return fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
}

/** "v1,<sig>" for each secret, space-separated. */
export async function signatureHeader(
  secrets: string[],
  messageId: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const content = encoder.encode(`${messageId}.${timestamp}.${body}`);
  const signatures: string[] = [];
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey(
      "raw",
      secretBytes(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    signatures.push(`v1,${base64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`);
  }
  return signatures.join(" ");
}

/** Secrets are stored sealed with a key derived from SIGNING_SECRET, bound to their endpoint. */
export const sealSecret = (signingSecret: string, secret: string, endpointId: string) =>
  seal(signingSecret, SEAL_PURPOSE, secret, endpointId);
export const unsealSecret = (signingSecret: string, sealed: string, endpointId: string) =>
  unseal(signingSecret, SEAL_PURPOSE, sealed, endpointId);
