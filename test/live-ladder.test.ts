// A ladder while live (docs/live.md "A ladder while live") through the real worker, its queue
// and the transcoder program (the TRANSCODER binding): ffmpeg's own fMP4 and MPEG-TS segments
// (160x90) pushed as an encoder pushes them, each transcoded into the organization's rungs below
// the picture; the multivariant playlist lists the source and the rungs that exist; each rung's
// playlist follows the source's segments, its media segments starting at the source's times; a
// segment the transcoder refuses is a gap; a rung far behind leaves the master; the recording
// keeps every rung it got; a stream whose first segment cannot be read keeps one rendition.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mintPlaybackToken } from "../sdk/client/src/playback";
import type { LiveStream } from "../src/durable/live-stream";
import { Bytes, children, descend } from "../src/media/bmff/reader";
import { contentIdOfHlsVersion } from "../src/storage/layout";
import fmp4Seg0 from "./fixtures/live/fmp4/index0.m4s.bin?inline";
import fmp4Seg1 from "./fixtures/live/fmp4/index1.m4s.bin?inline";
import fmp4Seg2 from "./fixtures/live/fmp4/index2.m4s.bin?inline";
import fmp4Init from "./fixtures/live/fmp4/init.mp4.bin?inline";
import tsSeg0 from "./fixtures/live/ts/index0.ts.bin?inline";
import tsSeg1 from "./fixtures/live/ts/index1.ts.bin?inline";
import { call, createOrg, dataUrlBytes, SETTLED_MS, type TestOrg, writeJson } from "./helpers";

const FMP4 = [fmp4Seg0, fmp4Seg1, fmp4Seg2].map(dataUrlBytes);
const INIT = dataUrlBytes(fmp4Init);
const TS = [tsSeg0, tsSeg1].map(dataUrlBytes);

/** Two rungs below the fixtures' 160x90. */
const LADDER = [
  { height: 64, bitrate: 120_000 },
  { height: 36, bitrate: 60_000 },
];

const put = (url: string, body: BodyInit) => call(url, { method: "PUT", body });

function playlist(names: string[], options: { fmp4?: boolean; ended?: boolean } = {}) {
  return [
    "#EXTM3U",
    `#EXT-X-VERSION:${options.fmp4 ? 7 : 3}`,
    "#EXT-X-TARGETDURATION:1",
    "#EXT-X-MEDIA-SEQUENCE:0",
    ...(options.fmp4 ? ['#EXT-X-MAP:URI="init.mp4"'] : []),
    ...names.flatMap((n) => ["#EXTINF:1.000000,", n]),
    ...(options.ended ? ["#EXT-X-ENDLIST"] : []),
    "",
  ].join("\n");
}

async function ladderOrg(): Promise<TestOrg> {
  const own = await createOrg({ plan: "enterprise" });
  const set = await writeJson(own, "PUT", "/v2/renditions/ladder", { rungs: LADDER });
  expect(set.res.status).toBe(200);
  return own;
}

async function liveStream(own: TestOrg) {
  const created = await writeJson(own, "POST", "/v2/live", { title: "Ladder" });
  expect(created.res.status).toBe(200);
  const { contentKey, ingestBaseUrl } = created.body as {
    contentKey: string;
    ingestBaseUrl: string;
  };
  return { contentKey, base: ingestBaseUrl };
}

/** The record's urlHLS (E3) while live, and the folder of its files. */
async function liveUrls(own: TestOrg, contentKey: string) {
  const { body } = await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`);
  const master = body.url as string;
  return { master, folder: master.replace(/master\.m3u8$/, "") };
}

const text = async (url: string) => {
  const res = await call(url);
  return res.status === 200 ? res.text() : `${res.status}`;
};
const uris = (playlistText: string) =>
  playlistText.split("\n").filter((l) => l && !l.startsWith("#"));

/**
 * The presentation time, in seconds, of the first video sample of an fMP4 media segment: its
 * decode time (tfdt) plus its composition offset (trun), as players place it.
 */
function videoStart(init: Uint8Array, media: Uint8Array): number {
  const i = new Bytes(init);
  const moov = descend(i, children(i, 0, init.length), ["moov"])!;
  const traks = children(i, moov.start, moov.end).filter((b) => b.type === "trak");
  let timescale = 0;
  let trackId = 0;
  for (const trak of traks) {
    const inner = children(i, trak.start, trak.end);
    const hdlr = descend(i, inner, ["mdia", "hdlr"])!;
    if (i.fourcc(hdlr.start + 8, hdlr) !== "vide") continue;
    const mdhd = descend(i, inner, ["mdia", "mdhd"])!;
    const v1 = i.u8(mdhd.start, mdhd) === 1;
    timescale = i.u32(mdhd.start + (v1 ? 20 : 12), mdhd);
    const tkhd = descend(i, inner, ["tkhd"])!;
    trackId = i.u32(tkhd.start + (i.u8(tkhd.start, tkhd) === 1 ? 20 : 12), tkhd);
  }
  const m = new Bytes(media);
  const moof = children(m, 0, media.length).find((b) => b.type === "moof")!;
  for (const traf of children(m, moof.start, moof.end).filter((b) => b.type === "traf")) {
    const inner = children(m, traf.start, traf.end);
    const tfhd = inner.find((b) => b.type === "tfhd")!;
    if (m.u32(tfhd.start + 4, tfhd) !== trackId) continue;
    const tfdt = inner.find((b) => b.type === "tfdt")!;
    const v1 = m.u8(tfdt.start, tfdt) === 1;
    const time = v1 ? m.u64(tfdt.start + 4, tfdt) : m.u32(tfdt.start + 4, tfdt);
    const trun = inner.find((b) => b.type === "trun")!;
    const flags = m.u32(trun.start, trun) & 0xffffff;
    let at = trun.start + 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
    for (const field of [0x100, 0x200, 0x400]) if (flags & field) at += 4;
    const offset = flags & 0x800 ? new DataView(media.buffer, media.byteOffset).getInt32(at) : 0;
    return (time + offset) / timescale;
  }
  throw new Error("no video track fragment");
}

const bytesOf = async (url: string) => new Uint8Array(await (await call(url)).arrayBuffer());

describe.skipIf(!env.TRANSCODER)("a ladder while live (the local transcoder)", () => {
  it("transcodes each fMP4 segment into the rungs, aligned, listed in the master; the recording keeps them", async () => {
    const own = await ladderOrg();
    const { contentKey, base } = await liveStream(own);
    expect((await put(`${base}/init.mp4`, INIT)).status).toBe(201);
    // As ffmpeg pushes: each segment, then the playlist listing it.
    const names = FMP4.map((_, n) => `index${n}.m4s`);
    for (const [n, bytes] of FMP4.entries()) {
      expect((await put(`${base}/${names[n]}`, bytes)).status).toBe(201);
      const listed = playlist(names.slice(0, n + 1), { fmp4: true });
      expect((await put(`${base}/index.m3u8`, listed)).status).toBe(200);
    }
    const { master, folder } = await liveUrls(own, contentKey);
    expect(master).toMatch(/\/live\/[^/]+\/h2-[0-9a-z]+\/master\.m3u8$/);

    // The rungs join the master as their segments are made: the source first, then each rung.
    await expect
      .poll(async () => uris(await text(master)), { timeout: SETTLED_MS, interval: 200 })
      .toEqual(["index.m3u8", "r64.m3u8", "r36.m3u8"]);
    const listed = await text(master);
    expect(listed).toMatch(/BANDWIDTH=\d+,AVERAGE-BANDWIDTH=\d+,RESOLUTION=160x90\nindex\.m3u8/);
    expect(listed).toMatch(/RESOLUTION=114x64\nr64\.m3u8/);
    expect(listed).toMatch(/RESOLUTION=64x36\nr36\.m3u8/);

    // Every rung's playlist: the source's segments, numbers and durations, with its own files.
    await expect
      .poll(async () => uris(await text(`${folder}r36.m3u8`)), { timeout: SETTLED_MS })
      .toEqual(["r36-u1.m4s", "r36-u2.m4s", "r36-u3.m4s"]);
    const source = await text(`${folder}index.m3u8`);
    for (const rung of ["r64", "r36"]) {
      await expect
        .poll(async () => uris(await text(`${folder}${rung}.m3u8`)), { timeout: SETTLED_MS })
        .toEqual(uris(source).map((u) => `${rung}-${u}`));
      const rungText = await text(`${folder}${rung}.m3u8`);
      expect(rungText).toContain(`#EXT-X-MAP:URI="${rung}-u0.mp4"`);
      expect(rungText.match(/#EXTINF:[\d.]+/g)).toEqual(source.match(/#EXTINF:[\d.]+/g));
      expect(rungText).toContain("#EXT-X-MEDIA-SEQUENCE:0\n");
      expect(rungText).not.toContain("#EXT-X-GAP");
      // Each rung segment starts where the source's does (its timestamps kept), within a frame.
      const rungInit = await bytesOf(`${folder}${rung}-u0.mp4`);
      const sourceInit = await bytesOf(`${folder}u0.mp4`);
      for (const file of uris(source)) {
        const at = videoStart(sourceInit, await bytesOf(`${folder}${file}`));
        const rungAt = videoStart(rungInit, await bytesOf(`${folder}${rung}-${file}`));
        expect(Math.abs(rungAt - at), `${rung} ${file}`).toBeLessThan(0.001);
      }
    }
    const segment = await call(`${folder}r64-u2.m4s`);
    expect(segment.status).toBe(200);
    expect(segment.headers.get("Cache-Control")).toContain("immutable");
    await segment.arrayBuffer();

    // The end: the master and every rung stay, as video on demand (every segment, ENDLIST).
    expect(
      (await put(`${base}/index.m3u8`, playlist(names, { fmp4: true, ended: true }))).status,
    ).toBe(200);
    // (Once the edge's copy of the live one, a second old at most, is gone.)
    await expect
      .poll(async () => text(`${folder}r64.m3u8`), { timeout: SETTLED_MS, interval: 250 })
      .toContain("#EXT-X-ENDLIST");
    const vodRung = await text(`${folder}r64.m3u8`);
    expect(uris(vodRung)).toEqual(["r64-u1.m4s", "r64-u2.m4s", "r64-u3.m4s"]);
    expect(uris(await text(`${folder}master.m3u8`))).toEqual([
      "index.m3u8",
      "r64.m3u8",
      "r36.m3u8",
    ]);
  });

  it("signed playback: one token carried from the master to every rung's playlist and files", async () => {
    const own = await ladderOrg();
    const key = await writeJson(own, "POST", "/v2/playback-keys", { algorithm: "HS256" });
    expect(key.res.status).toBe(200);
    const on = await writeJson(own, "PUT", "/v2/playback-settings", { signedPlayback: true });
    expect(on.res.status).toBe(200);
    const { contentKey, base } = await liveStream(own);
    expect((await put(`${base}/init.mp4`, INIT)).status).toBe(201);
    expect((await put(`${base}/index0.m4s`, FMP4[0]!)).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(["index0.m4s"], { fmp4: true }))).status).toBe(
      200,
    );
    const { master, folder } = await liveUrls(own, contentKey);
    expect((await call(master)).status).toBe(403);
    const token = await mintPlaybackToken(
      { keyId: key.body.keyId, algorithm: "HS256", secret: key.body.secret },
      { contentKey },
    );
    await expect
      .poll(async () => uris(await text(`${master}?token=${token}`)), { timeout: SETTLED_MS })
      .toEqual([`index.m3u8?token=${token}`, `r64.m3u8?token=${token}`, `r36.m3u8?token=${token}`]);
    await expect
      .poll(async () => text(`${folder}r64.m3u8?token=${token}`), { timeout: SETTLED_MS })
      .toContain(`#EXT-X-MAP:URI="r64-u0.mp4?token=${token}"`);
    const rung = await text(`${folder}r64.m3u8?token=${token}`);
    expect(uris(rung)).toEqual([`r64-u1.m4s?token=${token}`]);
    for (const file of ["r64-u0.mp4", "r64-u1.m4s"]) {
      expect((await call(`${folder}${file}?token=${token}`)).status, file).toBe(200);
      expect((await call(`${folder}${file}`)).status, file).toBe(403);
    }
  });

  it("MPEG-TS too: a rung's TS segments, listed like the source's", async () => {
    const own = await ladderOrg();
    const { contentKey, base } = await liveStream(own);
    const names = TS.map((_, n) => `index${n}.ts`);
    for (const [n, bytes] of TS.entries()) {
      expect((await put(`${base}/${names[n]}`, bytes)).status).toBe(201);
      expect((await put(`${base}/index.m3u8`, playlist(names.slice(0, n + 1)))).status).toBe(200);
    }
    const { master, folder } = await liveUrls(own, contentKey);
    await expect
      .poll(async () => uris(await text(`${folder}r64.m3u8`)), { timeout: SETTLED_MS })
      .toEqual(["r64-u0.ts", "r64-u1.ts"]);
    expect(uris(await text(master))).toEqual(["index.m3u8", "r64.m3u8", "r36.m3u8"]);
    const segment = await call(`${folder}r64-u1.ts`);
    expect(segment.headers.get("Content-Type")).toBe("video/mp2t");
    const bytes = new Uint8Array(await segment.arrayBuffer());
    // A transport stream: sync bytes every 188 bytes.
    expect(bytes.length % 188).toBe(0);
    expect([bytes[0], bytes[188]]).toEqual([0x47, 0x47]);
  });

  it("a segment the transcoder refuses is a gap; a rung far behind leaves the master, the source plays on", async () => {
    const own = await ladderOrg();
    const { contentKey, base } = await liveStream(own);
    expect((await put(`${base}/init.mp4`, INIT)).status).toBe(201);
    // A good segment, one the transcoder cannot read, a good one.
    const names = ["a.m4s", "broken.m4s", "b.m4s"];
    const bodies = [FMP4[0]!, new Uint8Array(4000).fill(7), FMP4[1]!];
    for (const [n, name] of names.entries()) {
      await put(`${base}/${name}`, bodies[n]!);
      const listed = playlist(names.slice(0, n + 1), { fmp4: true });
      expect((await put(`${base}/index.m3u8`, listed)).status).toBe(200);
    }
    const { master, folder } = await liveUrls(own, contentKey);
    await expect
      .poll(async () => text(`${folder}r64.m3u8`), { timeout: SETTLED_MS, interval: 200 })
      .toContain("r64-u3.m4s");
    const withGap = await text(`${folder}r64.m3u8`);
    // The refused one is a gap (players take it from the source); its number is kept.
    expect(withGap).toMatch(/#EXT-X-GAP\n#EXTINF:1\.000,\nr64-u2\.m4s\n/);
    expect(uris(await text(master))).toEqual(["index.m3u8", "r64.m3u8", "r36.m3u8"]);

    // Five more the transcoder refuses: the rung is far behind. Its playlist holds them back
    // for a grace of 6 s, then marks them gaps; the master lists the source alone.
    // (Listed at once: with the plan made, each gets its job.)
    const more = Array.from({ length: 5 }, (_, n) => `late${n}.m4s`);
    for (const name of more) await put(`${base}/${name}`, new Uint8Array(3000).fill(9));
    expect(
      (await put(`${base}/index.m3u8`, playlist([...names, ...more], { fmp4: true }))).status,
    ).toBe(200);
    await expect
      .poll(async () => uris(await text(master)), { timeout: SETTLED_MS, interval: 200 })
      .toEqual(["index.m3u8"]);
    expect(uris(await text(`${folder}r64.m3u8`)).at(-1)).toBe("r64-u3.m4s");
    const ns = env.LIVE_STREAMS;
    const stub = ns.get(ns.idFromName(contentKey));
    await runInDurableObject(stub, (object) => {
      (object as unknown as LiveStream).clock = () => Date.now() + 7_000;
    });
    const late = await runInDurableObject(stub, (object) =>
      (object as unknown as LiveStream).ladderPlaylist(contentIdOf(folder), "r64.m3u8"),
    );
    expect(uris(late!).length).toBe(8);
    expect(late!.match(/#EXT-X-GAP/g)).toHaveLength(6);
  });

  it("a first segment the transcoder cannot read: the stream keeps one rendition", async () => {
    const own = await ladderOrg();
    const { contentKey, base } = await liveStream(own);
    await put(`${base}/noise.ts`, new Uint8Array(1880).fill(0x47));
    expect((await put(`${base}/index.m3u8`, playlist(["noise.ts"]))).status).toBe(200);
    const { master } = await liveUrls(own, contentKey);
    const ns = env.LIVE_STREAMS;
    const stub = ns.get(ns.idFromName(contentKey));
    const plan = () =>
      runInDurableObject(stub, (object) =>
        (object as unknown as LiveStream).liveRungSource(contentIdOf(master), 0),
      );
    await expect
      .poll(async () => (await plan())?.plan, { timeout: SETTLED_MS })
      .toEqual({
        source: { width: 0, height: 0 },
        rungs: [],
      });
    await put(`${base}/good.ts`, TS[0]!);
    expect((await put(`${base}/index.m3u8`, playlist(["noise.ts", "good.ts"]))).status).toBe(200);
    expect(uris(await text(master))).toEqual(["index.m3u8"]);
    expect(await text(master.replace("master.m3u8", "r64.m3u8"))).toBe("404");
    const { body } = await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`);
    expect(body.live.rungs).toEqual([]);
  });
});

/** The content id a /live/ folder's version names. */
const contentIdOf = (folder: string) => contentIdOfHlsVersion(folder.split("/").at(-2)!)!;
