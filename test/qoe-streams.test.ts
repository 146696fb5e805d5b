// Stream requests that carry CMCD data (a player with CMCD on: hls.js adds a CMCD= query to every
// playlist and segment, or CMCD-* headers) are served, signed and cached exactly as without it:
// the edge cache's key and the token rewrite ignore it (docs/qoe.md).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { mintPlaybackToken } from "../sdk/client/src/playback";
import { cmcdLine, postCmcd, settledView } from "./fixtures/cmcd";
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
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(faststartUrl);
const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

async function streamDir(org: TestOrg, key: string): Promise<string> {
  const { body } = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(org) });
  const url: string = body.data.find((v: any) => v.contentKey === key).urlHLS;
  return url.slice(ORIGIN.length).replace(/master\.m3u8$/, "");
}

/** What hls.js puts on a segment request (request mode, query transmission), sn varying. */
const cmcdQuery = (sn: number) =>
  `CMCD=${encodeURIComponent(cmcdLine({ br: [2400], d: 6000, ot: "v", sid: "6e2fb550-c457", sn, su: true, v: 2 }))}`;

let org: TestOrg;
let key: string;
let dir: string;
beforeAll(async () => {
  org = await createOrg();
  key = await publishVideo(org, mp4, { title: "CMCD" });
  dir = await streamDir(org, key);
});

describe("the renditions of a view", () => {
  it("are named by the height of the variant whose bitrate the player reports", async () => {
    const height = await env.DB.prepare("select height from contents where content_key = ?")
      .bind(key)
      .first<number | null>("height");
    expect(height).toBeGreaterThan(0);
    const sid = `rendition-${Date.now().toString(36)}`;
    const t = Date.now() - 10_000;
    await postCmcd(org, [
      { e: "ps", sta: "s", sid, cid: key, ts: t, sn: 0, v: 2 },
      { e: "ps", sta: "p", sid, cid: key, ts: t + 500, sn: 1, v: 2, br: [123] },
      { e: "ps", sta: "e", sid, cid: key, ts: t + 5500, sn: 2, v: 2, br: [123] },
    ]);
    const view = await settledView(org, sid, key, (f) => f.lastState === "e");
    expect(view.figures.renditions).toEqual([
      expect.objectContaining({ rendition: `${height}p`, height, playedMs: 5000 }),
    ]);
  });
});

describe("stream requests with CMCD data", () => {
  it("share the cache entry of the same request without it", async () => {
    // Never asked before: the first request (CMCD sn=1) fills the entry, the next ones hit it.
    const first = await call(`${dir}0.m4s?${cmcdQuery(1)}`);
    expect(first.status).toBe(200);
    const bytes = new Uint8Array(await first.arrayBuffer());
    const second = await call(`${dir}0.m4s?${cmcdQuery(2)}`);
    expect(second.headers.get("X-Edge-Cache")).toBe("hit");
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(bytes);
    const plain = await call(`${dir}0.m4s`);
    expect(plain.headers.get("X-Edge-Cache")).toBe("hit");
    expect(new Uint8Array(await plain.arrayBuffer())).toEqual(bytes);
    // The same with the data in headers.
    const headers = await call(`${dir}0.m4s`, {
      headers: { "CMCD-Object": "br=(2400),ot=v", "CMCD-Session": 'sid="6e2fb550-c457",v=2' },
    });
    expect(headers.headers.get("X-Edge-Cache")).toBe("hit");
    expect(new Uint8Array(await headers.arrayBuffer())).toEqual(bytes);
  });

  it("get the same playlist", async () => {
    const plain = await textOf(await call(`${dir}video.m3u8`));
    const res = await call(`${dir}video.m3u8?${cmcdQuery(3)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Edge-Cache")).toBe("hit");
    expect(await textOf(res)).toBe(plain);
  });

  it("may carry CMCD-* headers across origins (preflight)", async () => {
    const res = await call(`${dir}0.m4s`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://publisher.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "cmcd-object,cmcd-request,cmcd-session,cmcd-status",
      },
    });
    expect(res.status).toBe(204);
    const allowed = res.headers.get("Access-Control-Allow-Headers")?.toLowerCase() ?? "";
    for (const h of ["cmcd-object", "cmcd-request", "cmcd-session", "cmcd-status"])
      expect(allowed).toContain(h);
  });
});

describe("signed playback with CMCD data", () => {
  it("checks the token, writes only the token into the playlists, and caches once", async () => {
    const signed = await createOrg();
    const key = await publishVideo(signed, mp4, { title: "Signed CMCD" });
    const signedDir = await streamDir(signed, key);
    const created = await writeJson(signed, "POST", "/v2/playback-keys", { algorithm: "HS256" });
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    const hs = {
      keyId: created.body.keyId,
      algorithm: "HS256" as const,
      secret: created.body.secret,
    };
    const on = await writeJson(signed, "PUT", "/v2/playback-settings", { signedPlayback: true });
    expect(on.res.status).toBe(200);
    const token = await mintPlaybackToken(hs, { contentKey: key });

    const refused = await call(`${signedDir}video.m3u8?${cmcdQuery(1)}`);
    expect(refused.status).toBe(403);
    const playlist = await call(`${signedDir}video.m3u8?token=${token}&${cmcdQuery(2)}`);
    expect(playlist.status).toBe(200);
    const body = await textOf(playlist);
    expect(body).toContain(`#EXT-X-MAP:URI="init.mp4?token=${token}"`);
    expect(body).not.toContain("CMCD");
    const segments = body.split("\n").filter((l) => l.includes(".m4s"));
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(s).toMatch(new RegExp(`^\\d+\\.m4s\\?token=${token}$`));

    const a = await call(`${signedDir}0.m4s?token=${token}&${cmcdQuery(3)}`);
    expect(a.status).toBe(200);
    await a.arrayBuffer();
    const b = await call(`${signedDir}0.m4s?${cmcdQuery(4)}&token=${token}`);
    expect(b.status).toBe(200);
    expect(b.headers.get("X-Edge-Cache")).toBe("hit");
    await b.arrayBuffer();
  });
});
