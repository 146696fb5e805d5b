// CPU cost of signed playback's per-request work, in Node (bench/signed-playback.mjs prints it):
// verifying a token of each algorithm (the keys imported once, as an isolate keeps them), and
// writing a token into a media playlist of a 1-hour video (600 segments).
import { mintPlaybackToken } from "../sdk/client/src/playback";
import { ALGORITHMS, type VerifyingKey, verifyPlaybackToken } from "../src/domain/playback/tokens";
import { withTokenInPlaylist } from "../src/middleware/signed-playback";

const ROUNDS = 2000;

async function timed(rounds: number, work: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 50; i++) await work();
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await work();
  return ((performance.now() - start) / rounds) * 1000;
}

export async function measure(): Promise<{ step: string; us: number }[]> {
  const request = {
    contentKey: "abc123",
    nowMs: Date.now(),
    country: "FR",
    referrerHost: null,
    serviceHost: "api.example.com",
  };
  const rows: { step: string; us: number }[] = [];
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const hs: VerifyingKey = {
    algorithm: "HS256",
    key: await crypto.subtle.importKey(
      "raw",
      Buffer.from(secret, "base64url"),
      ALGORITHMS.HS256.import,
      false,
      ["verify"],
    ),
  };
  const hsToken = await mintPlaybackToken(
    { keyId: "pk_hs", algorithm: "HS256", secret },
    { contentKey: "abc123", country: "FR" },
  );
  const hsKeys = new Map([["pk_hs", hs]]);
  rows.push({
    step: "verify an HS256 token",
    us: await timed(ROUNDS, () => verifyPlaybackToken(hsToken, hsKeys, request)),
  });
  for (const algorithm of ["ES256", "RS256"] as const) {
    const pair = (await crypto.subtle.generateKey(
      algorithm === "ES256"
        ? { name: "ECDSA", namedCurve: "P-256" }
        : {
            name: "RSASSA-PKCS1-v1_5",
            hash: "SHA-256",
            modulusLength: 2048,
            publicExponent: new Uint8Array([1, 0, 1]),
          },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const token = await mintPlaybackToken(
      { keyId: "pk_x", algorithm, privateKey: pair.privateKey },
      { contentKey: "abc123" },
    );
    const keys = new Map([["pk_x", { algorithm, key: pair.publicKey }]]);
    rows.push({
      step: `verify an ${algorithm} token`,
      us: await timed(ROUNDS, () => verifyPlaybackToken(token, keys, request)),
    });
  }
  const playlist = [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    '#EXT-X-MAP:URI="init.mp4"',
    ...Array.from({ length: 600 }, (_, n) => `#EXTINF:6.000,\n${n}.m4s`),
    "#EXT-X-ENDLIST",
  ].join("\n");
  rows.push({
    step: "write the token into a 600-segment media playlist",
    us: await timed(200, () => withTokenInPlaylist(playlist, hsToken)),
  });
  return rows;
}
