// The worker's WebAuthn checks (src/domain/members/webauthn.ts) against @simplewebauthn/server,
// the well-kept library they stand in for (too big for the worker's bundle: 88 KB gzipped), run
// here in workerd as the oracle: both accept what an authenticator answers, and both refuse an
// answer for another challenge, origin or site, a tampered signature or a counter gone back.
import { verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import {
  type Expected,
  verifyAuthentication,
  verifyRegistration,
} from "../src/domain/members/webauthn";
import { assert, b64url, register } from "./authenticator";

const ceremony = { origin: "https://catalog.test", rpId: "catalog.test" };
const challenge = () => b64url(crypto.getRandomValues(new Uint8Array(32)));

async function both(response: any, expected: Expected) {
  const ours = await verifyRegistration(response, expected).then(
    (c) => c,
    (err: Error) => err,
  );
  const theirs = await verifyRegistrationResponse({
    response,
    expectedChallenge: expected.challenge,
    expectedOrigin: [...expected.origins],
    expectedRPID: expected.rpId,
    requireUserVerification: false,
  }).then(
    (r) => r,
    (err: Error) => err,
  );
  return { ours, theirs };
}

describe("passkey registration and assertion, checked as @simplewebauthn/server checks them", () => {
  it("accepts a registration and its assertions; refuses what the library refuses", async () => {
    const c1 = challenge();
    const expected = { challenge: c1, origins: [ceremony.origin], rpId: ceremony.rpId };
    const { credential, response } = await register({ challenge: c1 }, ceremony);
    const { ours, theirs } = await both(response, expected);
    expect(theirs).toMatchObject({ verified: true });
    expect(ours).toMatchObject({ id: credential.id, algorithm: -7, counter: 0 });
    if (ours instanceof Error || theirs instanceof Error) throw new Error("unreachable");
    expect(ours.id).toBe(theirs.registrationInfo!.credential.id);

    for (const wrong of [
      { ...expected, challenge: challenge() },
      { ...expected, origins: ["https://evil.test"] },
      { ...expected, rpId: "evil.test" },
    ]) {
      const judged = await both(response, wrong);
      expect(judged.theirs).toBeInstanceOf(Error);
      expect(judged.ours).toBeInstanceOf(Error);
    }

    const stored = { publicKey: ours.publicKey, counter: 0 };
    const c2 = challenge();
    const answer = await assert(credential, { challenge: c2 }, ceremony);
    const expected2 = { challenge: c2, origins: [ceremony.origin], rpId: ceremony.rpId };
    const theirAssertion = await verifyAuthenticationResponse({
      response: answer,
      expectedChallenge: c2,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      credential: {
        id: credential.id,
        publicKey: Uint8Array.from(
          atob(ours.publicKey.replace(/-/g, "+").replace(/_/g, "/")),
          (ch) => ch.charCodeAt(0),
        ),
        counter: 0,
      },
      requireUserVerification: false,
    });
    expect(theirAssertion.verified).toBe(true);
    expect(await verifyAuthentication(answer, expected2, stored)).toEqual({ counter: 1 });

    // A flipped bit of the signature, another challenge, a counter that did not move on.
    const sig = answer.response.signature as string;
    const tampered = {
      ...answer,
      response: {
        ...answer.response,
        signature: sig.slice(0, -2) + (sig.at(-2) === "A" ? "B" : "A") + sig.at(-1),
      },
    };
    await expect(verifyAuthentication(tampered, expected2, stored)).rejects.toThrow(
      /passkey refused/,
    );
    await expect(
      verifyAuthentication(answer, { ...expected2, challenge: challenge() }, stored),
    ).rejects.toThrow(/challenge/);
    await expect(
      verifyAuthentication(answer, expected2, { ...stored, counter: 5 }),
    ).rejects.toThrow(/counter/);
  });

  it("refuses malformed answers with a 400-kind error, never a crash", async () => {
    const expected = { challenge: challenge(), origins: [ceremony.origin], rpId: ceremony.rpId };
    const garbage = [
      { id: "x", type: "public-key", response: { clientDataJSON: "!!", attestationObject: "" } },
      {
        id: "x",
        type: "public-key",
        response: {
          clientDataJSON: b64url(new TextEncoder().encode("{}")),
          attestationObject: "AA",
        },
      },
    ];
    for (const response of garbage)
      await expect(verifyRegistration(response as any, expected)).rejects.toMatchObject({
        kind: "invalid",
      });
  });
});
