// Signed playback (docs/api.md "Signed playback"): playback keys through /v2/playback-keys, the
// organization's setting, and the check of every media URL and the embed, before the edge
// cache. Tokens are minted with the typed client's helper (sdk/client/src/playback.ts).
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mintPlaybackToken, type PlaybackSigningKey } from "../sdk/client/src/playback";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());
const pathOf = (url: string) => url.slice(ORIGIN.length);

async function urlHlsOf(org: TestOrg, contentKey: string): Promise<string> {
  const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  return body.data.find((v: any) => v.contentKey === contentKey).urlHLS;
}

async function hsKey(org: TestOrg): Promise<PlaybackSigningKey> {
  const { res, body } = await writeJson(org, "POST", "/v2/playback-keys", {
    algorithm: "HS256",
    name: "web",
  });
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toMatchObject({ algorithm: "HS256", name: "web", publicKey: null });
  expect(body.keyId).toMatch(/^pk_[A-Za-z0-9]{20}$/);
  expect(body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { keyId: body.keyId, algorithm: "HS256", secret: body.secret };
}

async function expectRefused(res: Response, message: RegExp, refusal?: string) {
  expect(res.status).toBe(403);
  const body = await res.json<any>();
  expect(body.status).toBe("KO");
  expect(body.error).toMatch(message);
  if (refusal) expect(body.refusal).toBe(refusal);
}

/** The embed page a refused viewer gets: the player's page, no media, the refusal named. */
async function expectRefusedPage(res: Response, refusal: string) {
  expect(res.status).toBe(403);
  expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
  const page = await res.text();
  expect(page).toContain(`data-refused="${refusal}"`);
  expect(page).toContain('<script type="module" src="/embed/player.js"></script>');
  expect(page).not.toContain("<video");
  expect(res.headers.get("Cache-Control")).toBe("private, max-age=60");
}

let org: TestOrg;
let key: string;
let other: string;
let master: string;
let hs: PlaybackSigningKey;
const mp4 = dataUrlBytes(faststartUrl);

beforeAll(async () => {
  org = await createOrg();
  key = await publishVideo(org, mp4, { title: "Signed" });
  other = await publishVideo(org, mp4, { title: "Other" });
  master = pathOf(await urlHlsOf(org, key));
  // Off until a key exists to sign with.
  const early = await writeJson(org, "PUT", "/v2/playback-settings", { signedPlayback: true });
  expect(early.res.status).toBe(409);
  expect(early.body.error).toMatch(/create a playback key/);
  hs = await hsKey(org);
  const on = await writeJson(org, "PUT", "/v2/playback-settings", { signedPlayback: true });
  expect(on.res.status, JSON.stringify(on.body)).toBe(200);
  expect(on.body).toEqual({ signedPlayback: true });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("playback keys", () => {
  it("are listed without their secrets, and the setting reads back", async () => {
    const { body } = await writeJson(org, "GET", "/v2/playback-keys");
    const listed = body.keys.find((k: any) => k.keyId === hs.keyId);
    expect(listed).toMatchObject({ algorithm: "HS256", name: "web" });
    expect(listed.secret).toBeUndefined();
    expect((await writeJson(org, "GET", "/v2/playback-settings")).body).toEqual({
      signedPlayback: true,
    });
  });

  it("refuse bad input with a message naming the problem", async () => {
    const bad = await writeJson(org, "POST", "/v2/playback-keys", { algorithm: "none" });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toMatch(/algorithm/);
    const priv = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", priv.privateKey);
    const secret = await writeJson(org, "POST", "/v2/playback-keys", {
      algorithm: "ES256",
      publicKey: jwk,
    });
    expect(secret.res.status).toBe(400);
    expect(secret.body.error).toMatch(/private key/);
    const garbage = await writeJson(org, "POST", "/v2/playback-keys", {
      algorithm: "RS256",
      publicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
    });
    expect(garbage.res.status).toBe(400);
    expect(garbage.body.error).toMatch(/publicKey/);
    const gone = await writeJson(org, "DELETE", "/v2/playback-keys/pk_00000000000000000000");
    expect(gone.res.status).toBe(404);
  });
});

describe("a video that requires signed playback", () => {
  it("plays master, media playlist, init and segments with one token, carried by the playlists", async () => {
    const token = await mintPlaybackToken(hs, { contentKey: key });
    const m = await call(`${master}?token=${token}`);
    expect(m.status).toBe(200);
    expect(m.headers.get("Cache-Control")).toBe("private, max-age=300");
    const masterText = await textOf(m);
    const mediaLine = masterText.split("\n").find((l) => l.startsWith("video.m3u8"));
    expect(mediaLine).toBe(`video.m3u8?token=${token}`);
    const dir = master.replace(/master\.m3u8$/, "");
    const media = await textOf(await call(`${dir}${mediaLine}`));
    expect(media).toContain(`#EXT-X-MAP:URI="init.mp4?token=${token}"`);
    const segments = media.split("\n").filter((l) => l.includes(".m4s"));
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(s).toMatch(new RegExp(`^\\d+\\.m4s\\?token=${token}$`));
    expect((await call(`${dir}init.mp4?token=${token}`)).status).toBe(200);
    const seg = await call(`${dir}${segments[0]}`);
    expect(seg.status).toBe(200);
    expect((await seg.arrayBuffer()).byteLength).toBeGreaterThan(100);
    // DASH: the template's URLs carry it too.
    const mpd = await textOf(await call(`${dir}manifest.mpd?token=${token}`));
    expect(mpd).toContain(`initialization="video-init.mp4?token=${token}"`);
    expect(mpd).toContain(`media="video-$Number$.m4s?token=${token}"`);
    // The MP4 and the embed, whose page passes the token on to what it plays.
    expect((await call(`/media/${key}/${key}.mp4?token=${token}`)).status).toBe(200);
    const embed = await call(`/embed/${key}?token=${token}`);
    expect(embed.status).toBe(200);
    const page = await embed.text();
    expect(page).toContain(`data-hls="${ORIGIN}${master}?token=${token}"`);
    expect(page).toContain(`data-mp4="${ORIGIN}/media/${key}/${key}.mp4?token=${token}"`);
  });

  it("plays its caption tracks with the token: the playlists and the manifest carry it", async () => {
    const put = await callJson(`/v2/content/captions/${key}/en`, {
      method: "PUT",
      headers: { ...writeHeaders(org), "Content-Type": "text/vtt" },
      body: "WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nSigned words\n",
    });
    expect(put.res.status, JSON.stringify(put.body)).toBe(201);
    const token = await mintPlaybackToken(hs, { contentKey: key });
    const dir = master.replace(/master\.m3u8$/, "");
    const masterText = await textOf(await call(`${master}?token=${token}`));
    expect(masterText).toContain(`URI="captions-en.m3u8?token=${token}"`);
    const playlist = await textOf(await call(`${dir}captions-en.m3u8?token=${token}`));
    expect(playlist).toContain(`captions-en.vtt?token=${token}`);
    const mpd = await textOf(await call(`${dir}manifest.mpd?token=${token}`));
    expect(mpd).toContain(`<BaseURL>captions-en.vtt?token=${token}</BaseURL>`);
    const vtt = await call(`${dir}captions-en.vtt?token=${token}`);
    expect(vtt.status).toBe(200);
    expect(await textOf(vtt)).toContain("Signed words");
    await expectRefused(await call(`${dir}captions-en.vtt`), /playback token required/);
  });

  it("is refused everywhere without a token; its thumbnail stays public", async () => {
    const dir = master.replace(/master\.m3u8$/, "");
    for (const path of [
      master,
      `${dir}video.m3u8`,
      `${dir}init.mp4`,
      `${dir}0.m4s`,
      `${dir}manifest.mpd`,
      `/media/${key}/${key}.mp4`,
      `/v2/player/${key}`,
    ])
      await expectRefused(await call(path), /playback token required/, "token_required");
    // The embed page says so to the viewer instead (not a JSON page in the iframe).
    await expectRefusedPage(await call(`/embed/${key}`), "token_required");
    expect((await call(`/thumbnails/${key}.jpg`)).status).toBe(200);
  });

  it("refuses an expired token (fake clock)", async () => {
    const start = Date.now();
    const token = await mintPlaybackToken(hs, { contentKey: key, expiresIn: 60, now: start });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start + 59_000);
    expect((await call(`${master}?token=${token}`)).status).toBe(200);
    vi.setSystemTime(start + 61_000);
    await expectRefused(
      await call(`${master}?token=${token}`),
      /playback token expired at/,
      "token_expired",
    );
    await expectRefusedPage(await call(`/embed/${key}?token=${token}`), "token_expired");
  });

  it("refuses a tampered token, and a malformed one", async () => {
    const token = await mintPlaybackToken(hs, { contentKey: other });
    const [h, , s] = token.split(".");
    const forged = btoa(JSON.stringify({ sub: key, exp: 4_000_000_000 }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    await expectRefused(
      await call(`${master}?token=${h}.${forged}.${s}`),
      /signature does not verify/,
    );
    await expectRefused(await call(`${master}?token=abc`), /malformed/);
    // alg none, whatever the payload, is refused.
    const none = `${btoa(JSON.stringify({ alg: "none", kid: hs.keyId })).replace(/=+$/, "")}.${forged}.`;
    await expectRefused(await call(`${master}?token=${none}`), /malformed|algorithm/);
  });

  it("refuses a token for another video", async () => {
    const token = await mintPlaybackToken(hs, { contentKey: other });
    await expectRefused(
      await call(`${master}?token=${token}`),
      new RegExp(`is for video ${other}, not ${key}`),
    );
  });

  it("refuses a token for another country", async () => {
    const token = await mintPlaybackToken(hs, { contentKey: key, country: ["FR", "BE"] });
    expect(
      (await call(`${master}?token=${token}`, { headers: { "CF-IPCountry": "BE" } })).status,
    ).toBe(200);
    await expectRefused(
      await call(`${master}?token=${token}`, { headers: { "CF-IPCountry": "DE" } }),
      /is for FR, BE; this request comes from DE/,
    );
  });

  it("refuses a token for another site's pages, but not the embed's media requests", async () => {
    const token = await mintPlaybackToken(hs, { contentKey: key, referrer: "news.example" });
    const at = (referer: string) =>
      call(`${master}?token=${token}`, { headers: { Referer: referer } });
    expect((await at("https://news.example/story")).status).toBe(200);
    expect((await at(`${ORIGIN}/embed/${key}`)).status).toBe(200);
    await expectRefused(await at("https://elsewhere.example/"), /is for pages of news\.example/);
  });

  it("checks an edge-cached segment again: refused without or with a bad token", async () => {
    const good = await mintPlaybackToken(hs, { contentKey: key });
    const dir = master.replace(/master\.m3u8$/, "");
    await (await call(`${dir}0.m4s?token=${good}`)).arrayBuffer();
    const again = await call(`${dir}0.m4s?token=${good}`);
    expect(again.status).toBe(200);
    expect(again.headers.get("X-Edge-Cache")).toBe("hit");
    await again.arrayBuffer();
    await expectRefused(await call(`${dir}0.m4s`), /playback token required/);
    const wrong = await mintPlaybackToken(hs, { contentKey: other });
    await expectRefused(await call(`${dir}0.m4s?token=${wrong}`), /is for video/);
  });

  it("never gives one viewer's token in a cached playlist to another", async () => {
    const a = await mintPlaybackToken(hs, { contentKey: key, viewer: "a" });
    const b = await mintPlaybackToken(hs, { contentKey: key, viewer: "b" });
    const dir = master.replace(/master\.m3u8$/, "");
    const first = await textOf(await call(`${dir}video.m3u8?token=${a}`));
    expect(first).toContain(a);
    const res = await call(`${dir}video.m3u8?token=${b}`);
    expect(res.headers.get("X-Edge-Cache")).toBe("hit");
    const second = await textOf(res);
    expect(second).toContain(b);
    expect(second).not.toContain(a);
  });

  it("keeps old tokens valid through a key rotation until the old key is deleted", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const created = await writeJson(org, "POST", "/v2/playback-keys", {
      algorithm: "ES256",
      publicKey: await crypto.subtle.exportKey("jwk", pair.publicKey),
      name: "rotation",
    });
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.secret).toBeUndefined();
    expect(created.body.publicKey).toMatchObject({ kty: "EC", crv: "P-256" });
    const es: PlaybackSigningKey = {
      keyId: created.body.keyId,
      algorithm: "ES256",
      privateKey: pair.privateKey,
    };
    const oldToken = await mintPlaybackToken(hs, { contentKey: key });
    const newToken = await mintPlaybackToken(es, { contentKey: key });
    expect((await call(`${master}?token=${oldToken}`)).status).toBe(200);
    expect((await call(`${master}?token=${newToken}`)).status).toBe(200);
    // A token that names the ES256 key but is signed HS256 with the other key's secret.
    const confused = await mintPlaybackToken({ ...hs, keyId: es.keyId }, { contentKey: key });
    await expectRefused(
      await call(`${master}?token=${confused}`),
      /algorithm HS256 is not its key's \(ES256\)/,
    );

    const deleted = await writeJson(org, "DELETE", `/v2/playback-keys/${hs.keyId}`);
    expect(deleted.res.status).toBe(200);
    await expectRefused(await call(`${master}?token=${oldToken}`), /unknown key/);
    expect((await call(`${master}?token=${newToken}`)).status).toBe(200);
    // The last key stays while signed playback is on: no video could play without it.
    const last = await writeJson(org, "DELETE", `/v2/playback-keys/${es.keyId}`);
    expect(last.res.status).toBe(409);
    expect(last.body.error).toMatch(/the last playback key while signed playback is on/);
    hs = es; // later tests sign with the key that is left
  });
});

describe("a token minted by the service (POST /v2/playback-tokens)", () => {
  it("plays with the newest HS256 key; without one, 409", async () => {
    const hsOrg = await createOrg();
    const k = await publishVideo(hsOrg, mp4);
    await hsKey(hsOrg);
    const on = await writeJson(hsOrg, "PUT", "/v2/playback-settings", { signedPlayback: true });
    expect(on.res.status).toBe(200);
    const minted = await writeJson(hsOrg, "POST", "/v2/playback-tokens", {
      contentKey: k,
      expiresIn: 600,
    });
    expect(minted.res.status, JSON.stringify(minted.body)).toBe(200);
    expect((await call(`/media/${k}/${k}.mp4?token=${minted.body.token}`)).status).toBe(200);
    // Another organization's video: not found for this one.
    const foreign = await writeJson(hsOrg, "POST", "/v2/playback-tokens", { contentKey: key });
    expect(foreign.res.status).toBe(404);
    // org holds only an ES256 key by now (the rotation test deleted the HS256 one).
    const none = await writeJson(org, "POST", "/v2/playback-tokens", { contentKey: key });
    expect(none.res.status).toBe(409);
    expect(none.body.error).toMatch(/no HS256 playback key/);
  });
});

describe("an HS256 secret that no longer opens (SIGNING_SECRET changed)", () => {
  it("refuses its tokens with 403, never a 500, and mints none", async () => {
    const o = await createOrg();
    const k = await publishVideo(o, mp4);
    const key = await hsKey(o);
    const token = await mintPlaybackToken(key, { contentKey: k });
    await writeJson(o, "PUT", "/v2/playback-settings", { signedPlayback: true });
    // As if sealed under another SIGNING_SECRET: the stored value no longer opens.
    await env.DB.prepare("UPDATE playback_keys SET secret = ? WHERE key_id = ?")
      .bind("v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA", key.keyId)
      .run();
    await expectRefused(await call(`/media/${k}/${k}.mp4?token=${token}`), /unknown key/);
    const minted = await writeJson(o, "POST", "/v2/playback-tokens", { contentKey: k });
    expect(minted.res.status).toBe(409);
    expect(minted.body.error).toMatch(/no longer opens/);
  });
});

describe("a video's own setting (E1/E4 signedPlayback)", () => {
  it("overrides the organization's either way, and E3 shows it", async () => {
    // Organization on, this video off: plays without a token.
    const open = await publishVideo(org, mp4, { title: "Trailer", signedPlayback: false });
    expect((await call(`/media/${open}/${open}.mp4`)).status).toBe(200);
    // Organization off, this video on (set by E4 from E3's answer).
    const plain = await createOrg();
    const k = await publishVideo(plain, mp4);
    expect((await call(`/media/${k}/${k}.mp4`)).status).toBe(200);
    const e3 = await writeJson(plain, "GET", `/v2/content?contentKey=${k}`);
    expect(e3.body.signedPlayback).toBeNull();
    const e4 = await writeJson(plain, "PUT", "/v2/content", { ...e3.body, signedPlayback: true });
    expect(e4.res.status, JSON.stringify(e4.body)).toBe(200);
    expect(e4.body.signedPlayback).toBe(true);
    await expectRefused(await call(`/media/${k}/${k}.mp4`), /playback token required/);
    const bad = await writeJson(plain, "PUT", "/v2/content", { ...e3.body, signedPlayback: "yes" });
    expect(bad.res.status).toBe(400);
    expect(bad.body.message).toMatch(/signedPlayback/);
  });
});

describe("with signed playback off", () => {
  it("plays as before, without a token", async () => {
    const plain = await createOrg();
    const k = await publishVideo(plain, mp4);
    const m = pathOf(await urlHlsOf(plain, k));
    const res = await call(m);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(await textOf(res)).not.toContain("token");
    expect((await call(`/media/${k}/${k}.mp4`)).status).toBe(200);
    expect((await call(`/embed/${k}`)).status).toBe(200);
  });

  it("when switched off again, plays without a token", async () => {
    const off = await writeJson(org, "PUT", "/v2/playback-settings", { signedPlayback: false });
    expect(off.body).toEqual({ signedPlayback: false });
    expect((await call(master)).status).toBe(200);
    const on = await writeJson(org, "PUT", "/v2/playback-settings", { signedPlayback: true });
    expect(on.res.status).toBe(200);
    expect((await call(master)).status).toBe(403);
  });
});
