// HLS of every published video (domain/streaming.ts): the record's urlHLS, playlists, the init
// segment and media segments from each kind of stored file, and the media rules (removed,
// deleted, another version), Range and the edge cache. Real players read these streams in
// test/e2e/streaming.test.ts (hls.js in Chromium, ffmpeg).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parseStreamFile, STREAM_FILE_FORMS } from "../src/shared/stream-files";
import movUrl from "./fixtures/h264-aac.mov?inline";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import fragUrl from "./fixtures/h264-aac-frag.mp4?inline";
import fragMoovSamplesUrl from "./fixtures/h264-aac-frag-moov-samples.mp4?inline";
import fragNoMfraUrl from "./fixtures/h264-aac-frag-nomfra.mp4?inline";
import moovEndUrl from "./fixtures/h264-aac-moov-end.mp4?inline";
import noAudioUrl from "./fixtures/h264-noaudio.mp4?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  SETTLED_MS,
  type TestOrg,
  writeJson,
} from "./helpers";
import { boxesIn, boxPath } from "./media-fmp4-synth";

let org: TestOrg;
beforeAll(async () => {
  org = await createOrg();
});

/** The record's urlHLS, from E6. */
async function urlHlsOf(contentKey: string): Promise<string> {
  const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  const record = body.data.find((v: any) => v.contentKey === contentKey);
  expect(record, JSON.stringify(body)).toBeDefined();
  return record.urlHLS;
}

const pathOf = (url: string) => url.slice(ORIGIN.length);
const base = (masterUrl: string) => pathOf(masterUrl).replace(/master\.m3u8$/, "");

/** Sample counts per trun and the mdat payload of one media segment. */
function segmentParts(bytes: Uint8Array) {
  const top = boxesIn(bytes);
  expect(top.map((b) => b.type)).toEqual(["moof", "mdat"]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const moof = top[0]!;
  const counts: number[] = [];
  for (const traf of boxesIn(bytes, moof.offset + 8, moof.offset + moof.size).filter(
    (b) => b.type === "traf",
  )) {
    const trun = boxesIn(bytes, traf.offset + 8, traf.offset + traf.size).find(
      (b) => b.type === "trun",
    )!;
    counts.push(view.getUint32(trun.offset + 12));
  }
  return { counts, mdatPayload: top[1]!.size - 8 };
}

/** A playlist's text (workerd warns when .text() reads a body whose type is not text/*). */
const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

/** Media bytes in a file: the payloads of its mdat boxes (ffmpeg puts only samples there). */
const mdatPayload = (file: Uint8Array) =>
  boxesIn(file)
    .filter((b) => b.type === "mdat")
    .reduce((n, b) => n + b.size - 8, 0);

async function readStream(masterUrl: string) {
  const master = await call(pathOf(masterUrl));
  expect(master.status).toBe(200);
  const playlist = await textOf(await call(`${base(masterUrl)}video.m3u8`));
  const segments = playlist.split("\n").filter((l) => l.endsWith(".m4s"));
  let mdat = 0;
  const counts = [0, 0];
  for (const name of segments) {
    const res = await call(`${base(masterUrl)}${name}`);
    expect(res.status, name).toBe(200);
    const parts = segmentParts(new Uint8Array(await res.arrayBuffer()));
    mdat += parts.mdatPayload;
    parts.counts.forEach((n, i) => (counts[i] = counts[i]! + n));
  }
  const durations = [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
  return { master: await textOf(master), playlist, segments, mdat, counts, durations };
}

describe("urlHLS and the stream of a published video", () => {
  let key: string;
  let masterUrl: string;
  const mp4 = dataUrlBytes(faststartUrl);

  beforeAll(async () => {
    key = await publishVideo(org, mp4, { title: "Streamed" });
    masterUrl = await urlHlsOf(key);
  });

  it("is an absolute versioned URL on the service, in E6 and in the feed files", async () => {
    expect(masterUrl).toMatch(new RegExp(`^${ORIGIN}/hls/${key}/h2-[0-9a-z]+/master\\.m3u8$`));
    const feed = await writeJson(org, "POST", "/v2/feeds", { name: "Streams", configuration: {} });
    expect(feed.res.status).toBe(200);
    // Feed files are published by the feed-rebuilds queue, a moment after the change (the poll's
    // 1 s default is too short for a busy machine).
    await expect
      .poll(
        async () =>
          (await callJson(`/v2/feeds/${feed.body.feed_id}/videos.json`)).body?.videos?.find(
            (v: any) => v.contentKey === key,
          )?.urlHLS,
        { timeout: SETTLED_MS, interval: 100 },
      )
      .toBe(masterUrl);
  });

  it("has a master playlist with the codecs, resolution and bandwidth of the file", async () => {
    const res = await call(pathOf(masterUrl));
    expect(res.headers.get("Content-Type")).toContain("application/vnd.apple.mpegurl");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    const text = await textOf(res);
    expect(text).toMatch(/^#EXTM3U\n#EXT-X-VERSION:7\n/);
    // H.264 High profile (0x64, no constraint flags) at the level x264 chose, AAC LC.
    expect(text).toMatch(/CODECS="avc1\.6400[0-9a-f]{2},mp4a\.40\.2"/);
    expect(text).toContain("RESOLUTION=320x180");
    const bandwidth = Number(/BANDWIDTH=(\d+)/.exec(text)![1]);
    // 14 KB over 2 s: about 55 kbit/s of media.
    expect(bandwidth).toBeGreaterThan(40_000);
    expect(bandwidth).toBeLessThan(80_000);
  });

  it("has an init segment and media segments holding every sample of the file", async () => {
    const init = await call(`${base(masterUrl)}init.mp4`);
    expect(init.status).toBe(200);
    expect(init.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const bytes = new Uint8Array(await init.arrayBuffer());
    expect(boxesIn(bytes).map((b) => b.type)).toEqual(["ftyp", "moov"]);
    expect(boxPath(bytes, ["moov", "mvex", "trex"])).toHaveLength(3);
    const stream = await readStream(masterUrl);
    expect(stream.playlist).toContain('#EXT-X-MAP:URI="init.mp4"');
    expect(stream.playlist).toContain("#EXT-X-ENDLIST");
    expect(stream.mdat).toBe(mdatPayload(mp4));
    expect(stream.counts[0]).toBe(20); // 2 s at 10 fps
    expect(stream.durations.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 2);
  });

  it("answers a Range of a segment with 206, and a repeat from the edge cache", async () => {
    const whole = new Uint8Array(await (await call(`${base(masterUrl)}0.m4s`)).arrayBuffer());
    const again = await call(`${base(masterUrl)}0.m4s`);
    expect(again.headers.get("X-Edge-Cache")).toBe("hit");
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(whole);
    const part = await call(`${base(masterUrl)}0.m4s`, { headers: { Range: "bytes=8-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("Content-Range")).toBe(`bytes 8-99/${whole.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.subarray(8, 100));
    const past = await call(`${base(masterUrl)}0.m4s`, {
      headers: { Range: `bytes=${whole.length}-` },
    });
    expect(past.status).toBe(416);
    const etag = again.headers.get("ETag")!;
    expect(
      (await call(`${base(masterUrl)}0.m4s`, { headers: { "If-None-Match": etag } })).status,
    ).toBe(304);
  });

  it("answers a Range with a stale If-Range with the whole segment, and bytes=-0 with 416 (RFC 9110)", async () => {
    const url = `${base(masterUrl)}0.m4s`;
    const whole = await call(url);
    const etag = whole.headers.get("ETag")!;
    const bytes = new Uint8Array(await whole.arrayBuffer());
    const current = await call(url, { headers: { Range: "bytes=0-9", "If-Range": etag } });
    expect(current.status).toBe(206);
    expect((await current.arrayBuffer()).byteLength).toBe(10);
    for (const stale of ['"h1-0.0.m4s"', `W/${etag}`, "Tue, 01 Jan 2019 00:00:00 GMT"]) {
      const res = await call(url, { headers: { Range: "bytes=0-9", "If-Range": stale } });
      expect(res.status, stale).toBe(200);
      expect(res.headers.get("Content-Range"), stale).toBeNull();
      expect(new Uint8Array(await res.arrayBuffer()), stale).toEqual(bytes);
    }
    const empty = await call(url, { headers: { Range: "bytes=-0" } });
    expect(empty.status).toBe(416);
    expect(empty.headers.get("Content-Range")).toBe(`bytes */${bytes.length}`);
    await empty.arrayBuffer();
  });

  it("describes video and audio as separate DASH AdaptationSets over per-track segments", async () => {
    const res = await call(`${base(masterUrl)}manifest.mpd`);
    expect(res.headers.get("Content-Type")).toContain("application/dash+xml");
    const mpd = await textOf(res);
    expect(mpd).toContain('mediaPresentationDuration="PT2.000S"');
    const sets = [
      ...mpd.matchAll(/<AdaptationSet [^>]*contentType="(\w+)"[\s\S]*?<\/AdaptationSet>/g),
    ];
    expect(sets.map((m) => m[1])).toEqual(["video", "audio"]);
    const [video, audio] = sets.map((m) => m[0]);
    expect(video).toMatch(/codecs="avc1\.6400[0-9a-f]{2}"/);
    expect(video).toContain('initialization="video-init.mp4" media="video-$Number$.m4s"');
    expect(audio).toContain('codecs="mp4a.40.2"');
    expect(audio).toContain('initialization="audio-init.mp4" media="audio-$Number$.m4s"');
    // One track per file, and together the samples of the muxed segment.
    const muxed = segmentParts(
      new Uint8Array(await (await call(`${base(masterUrl)}0.m4s`)).arrayBuffer()),
    );
    const parts = [];
    for (const kind of ["video", "audio"]) {
      const init = new Uint8Array(
        await (await call(`${base(masterUrl)}${kind}-init.mp4`)).arrayBuffer(),
      );
      const moov = boxPath(init, ["moov"])[0]!;
      const traks = boxesIn(init, moov.offset + 8, moov.offset + moov.size).filter(
        (b) => b.type === "trak",
      );
      expect(traks, kind).toHaveLength(1);
      const segment = await call(`${base(masterUrl)}${kind}-0.m4s`);
      expect(segment.status).toBe(200);
      expect(segment.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      parts.push(segmentParts(new Uint8Array(await segment.arrayBuffer())));
    }
    expect(parts.map((p) => p.counts)).toEqual(muxed.counts.map((n) => [n]));
    expect(parts[0]!.mdatPayload + parts[1]!.mdatPayload).toBe(muxed.mdatPayload);
    expect((await call(`${base(masterUrl)}audio-99.m4s`)).status).toBe(404);
  });

  it("keeps the source's edit lists in the init segments (B-frame delay, AAC priming)", async () => {
    // The source: video presented from 2 frames (0.2 s at 10 fps, timescale 10240) into its
    // decode times, and 1,024 AAC priming samples (44.1 kHz) not presented.
    const mediaTimes = (init: Uint8Array) => {
      const inside = (b: { offset: number; size: number }, type: string) =>
        boxesIn(init, b.offset + 8, b.offset + b.size).filter((x) => x.type === type);
      const moov = boxPath(init, ["moov"])[0]!;
      return inside(moov, "trak").flatMap((trak) =>
        inside(trak, "edts").flatMap((edts) =>
          // elst: header, version and flags, entry_count, segment_duration, media_time
          inside(edts, "elst").map((elst) =>
            new DataView(init.buffer, init.byteOffset).getUint32(elst.offset + 20),
          ),
        ),
      );
    };
    const muxed = new Uint8Array(await (await call(`${base(masterUrl)}init.mp4`)).arrayBuffer());
    expect(mediaTimes(muxed)).toEqual([2048, 1024]);
    for (const [kind, time] of [
      ["video", 2048],
      ["audio", 1024],
    ] as const) {
      const init = new Uint8Array(
        await (await call(`${base(masterUrl)}${kind}-init.mp4`)).arrayBuffer(),
      );
      expect(mediaTimes(init), kind).toEqual([time]);
    }
  });

  it("offers the record's WebVTT subtitles as subtitle renditions; an edit reaches the cached master at once", async () => {
    const before = await call(pathOf(masterUrl));
    expect(before.headers.get("X-Edge-Cache")).toBe("hit"); // read by the test above
    expect(await textOf(before)).not.toContain("#EXT-X-MEDIA");
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    const subtitles = [
      { en: "https://cdn.example.com/s/en.vtt", fr: "https://cdn.example.com/s/fr.srt" },
      { en: "https://cdn.example.com/s/en-sdh.vtt" },
      { "pt-BR": "https://cdn.example.com/s/pt.VTT?token=a%20b" },
      // A host that answers 404, and one that answers JSON (the tests' webhook receiver).
      {
        de: `${inject("webhookReceiver")}/files/de.vtt`,
        it: `${inject("webhookReceiver")}/control/it.vtt`,
      },
    ];
    const edited = await writeJson(org, "PUT", "/v2/content", { ...e3.body, subtitles });
    expect(edited.res.status, JSON.stringify(edited.body)).toBe(200);
    const after = await call(pathOf(masterUrl));
    expect(after.headers.get("X-Edge-Cache")).not.toBe("hit");
    expect(after.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
    const master = await textOf(after);
    // The SRT file is not WebVTT: it stays in the feed files only.
    expect(master.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA:"))).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-0.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English (2)",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-1.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Brazilian Portuguese",LANGUAGE="pt-BR",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-2.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="German",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-3.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Italian",LANGUAGE="it",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-4.m3u8"',
    ]);
    expect(master).toMatch(/#EXT-X-STREAM-INF:.*,SUBTITLES="subs"\nvideo\.m3u8\n/);
    const third = await call(`${base(masterUrl)}subtitles-2.m3u8`);
    expect(third.headers.get("Content-Type")).toContain("application/vnd.apple.mpegurl");
    expect(await textOf(third)).toBe(
      [
        "#EXTM3U",
        "#EXT-X-VERSION:7",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-MEDIA-SEQUENCE:0",
        "#EXT-X-PLAYLIST-TYPE:VOD",
        "#EXTINF:2.000,",
        // The file from the service's origin (read from the publisher's host by subtitles-2.vtt).
        "subtitles-2.vtt",
        "#EXT-X-ENDLIST",
        "",
      ].join("\n"),
    );
    const missing = await callJson(`${base(masterUrl)}subtitles-5.m3u8`);
    expect(missing.res.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain("5 WebVTT subtitle file(s)");
    const noFile = await callJson(`${base(masterUrl)}subtitles-5.vtt`);
    expect(noFile.res.status).toBe(404);
    expect(JSON.stringify(noFile.body)).toContain("5 WebVTT subtitle file(s)");
    // A publisher's file that cannot be passed on: 502 naming the file and why, never cached.
    const notFound = await callJson(`${base(masterUrl)}subtitles-3.vtt`);
    expect(notFound.res.status).toBe(502);
    expect(notFound.body).toEqual({
      status: "KO",
      error: "subtitles-3.vtt: the subtitle file's host answered 404",
    });
    expect(notFound.res.headers.get("Cache-Control")).toBe("no-store");
    const json = await callJson(`${base(masterUrl)}subtitles-4.vtt`);
    expect(json.res.status).toBe(502);
    expect(json.body).toEqual({
      status: "KO",
      error: "subtitles-4.vtt: the subtitle file is application/json, not WebVTT (text/vtt)",
    });
    // Repeats come from the edge cache under the new revision; removing the subtitles moves it again.
    expect((await call(pathOf(masterUrl))).headers.get("X-Edge-Cache")).toBe("hit");
    await writeJson(org, "PUT", "/v2/content", { ...e3.body, subtitles: [] });
    expect(await textOf(await call(pathOf(masterUrl)))).not.toContain("#EXT-X-MEDIA");
    expect((await call(`${base(masterUrl)}subtitles-0.m3u8`)).status).toBe(404);
  });

  it("answers 404 for a segment past the end, another version, and 400 for a bad file name", async () => {
    expect((await call(`${base(masterUrl)}99.m4s`)).status).toBe(404);
    expect((await call(`/hls/${key}/h1-zzzz/master.m3u8`)).status).toBe(404);
    const bad = await callJson(`${base(masterUrl)}secret.txt`);
    expect(bad.res.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("master.m3u8");
  });

  it("answers every name the stream grammar parses, and refuses (400) exactly the others", async () => {
    // Each form with its slots filled, and names one character away from them.
    const names = new Set<string>();
    for (const form of STREAM_FILE_FORMS) {
      const name = form
        .replace("r<height>", "r360")
        .replace("(video|audio)", "video")
        .replace("<n>", "1");
      names.add(name);
      for (let i = 0; i < name.length; i += 3)
        for (const c of ["0", "r", "-", "x"]) names.add(name.slice(0, i) + c + name.slice(i + 1));
    }
    expect(names.size).toBeGreaterThan(100);
    // An address of its own: these reads are not the rest of the file's public reads.
    const headers = { "CF-Connecting-IP": "198.51.100.80" };
    for (const name of names) {
      const res = await call(`${base(masterUrl)}${name}`, { headers });
      await res.arrayBuffer();
      if (parseStreamFile(name) === null) expect(res.status, name).toBe(400);
      else expect([200, 404], name).toContain(res.status);
    }
  });
});

describe("every kind of stored file", () => {
  const files: [string, string, number, number][] = [
    // name, fixture, video frames, seconds
    ["moov at the end", moovEndUrl, 20, 2],
    ["QuickTime .mov", movUrl, 20, 2],
    ["fragmented with mfra", fragUrl, 20, 2],
    ["fragmented, offsets from the moof", fragNoMfraUrl, 20, 2],
    ["fragmented, first samples in the moov", fragMoovSamplesUrl, 20, 2],
    ["video without audio", noAudioUrl, 30, 3],
    ["40 s with a keyframe every 2 s", fortyUrl, 200, 40],
  ];
  it.each(files)(
    "%s: segments hold every sample, cut at keyframes near 6 s (the first near 2 s)",
    async (_name, url, frames, seconds) => {
      const bytes = dataUrlBytes(url);
      const suffix = url === movUrl ? { suffix: ".mov" } : {};
      const key = await publishVideo(org, bytes, suffix);
      const stream = await readStream(await urlHlsOf(key));
      expect(stream.mdat).toBe(mdatPayload(bytes));
      expect(stream.counts[0]).toBe(frames);
      expect(stream.durations.reduce((a, b) => a + b, 0)).toBeCloseTo(seconds, 1);
      // The first segment ends at the first keyframe 2 s in (a short first segment for a fast
      // start), the others at the first 6 s in.
      const [first, ...rest] = stream.durations;
      if (rest.length > 0) expect(first).toBeGreaterThanOrEqual(2);
      for (const d of rest.slice(0, -1)) expect(d).toBeGreaterThanOrEqual(6);
      if (seconds === 40) expect(stream.durations).toEqual([2, 6, 6, 6, 6, 6, 6, 2]);
    },
  );
});

describe("the media rules hold for the stream", () => {
  it("stops serving a removed or deleted video, cached segments included", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const master = await urlHlsOf(key);
    expect((await call(`${base(master)}0.m4s`)).status).toBe(200);
    expect((await admin(`/admin/videos/${key}`, "PATCH", { removed: true })).res.status).toBe(200);
    for (const file of ["master.m3u8", "video.m3u8", "init.mp4", "0.m4s"])
      expect((await call(`${base(master)}${file}`)).status, file).toBe(404);
    expect((await admin(`/admin/videos/${key}`, "PATCH", { removed: false })).res.status).toBe(200);
    expect((await call(`${base(master)}0.m4s`)).status).toBe(200);

    // What the packager's previous revision stored (h1) goes with the content too.
    const h1 = master.split("/")[5]!.replace(/^h\d+-/, "h1-");
    await env.MEDIA.put(`${key}/hls/${h1}/index.json`, "{}");
    await env.MEDIA.put(`${key}/hls/${h1}/samples.bin`, new Uint8Array(24));
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${key}`)).res.status).toBe(200);
    expect((await call(`${base(master)}0.m4s`)).status).toBe(404);
    const left = await env.MEDIA.list({ prefix: `${key}/` });
    expect(left.objects.map((o) => o.key)).toEqual([]);
  });

  it("sends a playlist URL of the packager's earlier revision to the current one, not its segments", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const master = await urlHlsOf(key);
    const current = master.split("/")[5]!;
    const earlier = current.replace(/^h\d+-/, "h1-");
    expect(earlier).not.toBe(current);
    for (const file of ["master.m3u8", "video.m3u8", "manifest.mpd"]) {
      const res = await call(`/hls/${key}/${earlier}/${file}?token=t`, { redirect: "manual" });
      expect(res.status, file).toBe(301);
      expect(res.headers.get("Location"), file).toBe(`/hls/${key}/${current}/${file}?token=t`);
    }
    // Segments of another revision have other bytes: not moved.
    expect((await call(`/hls/${key}/${earlier}/0.m4s`, { redirect: "manual" })).status).toBe(404);
    // A revision that names another content row is not moved either.
    const other = `h1-${(parseInt(current.slice(3), 36) + 1).toString(36)}`;
    const res = await call(`/hls/${key}/${other}/master.m3u8`, { redirect: "manual" });
    expect(res.status).toBe(404);
  });

  it("names the file: a content key deleted and created again gets new URLs, the old ones 404", async () => {
    const contentKey = `r${Math.random().toString(36).slice(2, 9)}`;
    await publishVideo(org, dataUrlBytes(faststartUrl), { contentKey });
    const first = await urlHlsOf(contentKey);
    expect(
      (await writeJson(org, "DELETE", `/v2/content?contentKey=${contentKey}`)).res.status,
    ).toBe(200);
    await publishVideo(org, dataUrlBytes(fortyUrl), { contentKey });
    const second = await urlHlsOf(contentKey);
    expect(second).not.toBe(first);
    expect((await call(`${base(first)}0.m4s`)).status).toBe(404);
    expect((await readStream(second)).counts[0]).toBe(200);
  });

  it("a deleted video stays deleted: its cached stream files are not served once another organization reuses the key (issue 34 §2)", async () => {
    const contentKey = `x${Math.random().toString(36).slice(2, 9)}`;
    const subtitles = [{ en: "https://cdn.example.com/deleted/en.vtt" }];
    await publishVideo(org, dataUrlBytes(faststartUrl), { contentKey, subtitles });
    const old = await urlHlsOf(contentKey);
    const files = [
      "master.m3u8",
      "video.m3u8",
      "subtitles-0.m3u8",
      "manifest.mpd",
      "init.mp4",
      "0.m4s",
    ];
    // Each file twice: the second answer comes from the edge cache.
    for (const file of files) {
      expect((await call(`${base(old)}${file}`)).status, file).toBe(200);
      expect((await call(`${base(old)}${file}`)).headers.get("X-Edge-Cache"), file).toBe("hit");
    }
    expect(
      (await writeJson(org, "DELETE", `/v2/content?contentKey=${contentKey}`)).res.status,
    ).toBe(200);
    const other = await createOrg();
    await publishVideo(other, dataUrlBytes(fortyUrl), { contentKey });
    for (const file of files) {
      const res = await call(`${base(old)}${file}`);
      expect(res.status, file).toBe(404);
      expect(await textOf(res), file).toContain("no stream version");
    }
    // The new organization's stream is served under its own version.
    const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
      headers: readHeaders(other),
    });
    const current = body.data[0].urlHLS as string;
    expect(current).not.toBe(old);
    expect((await call(`${base(current)}0.m4s`)).status).toBe(200);
    // The MP4 URL names the key, not the row, and is not kept in the edge cache: it serves the
    // new organization's file, never the deleted one.
    const mp4 = await call(`/media/${contentKey}/${contentKey}.mp4`);
    expect(mp4.status).toBe(200);
    expect(new Uint8Array(await mp4.arrayBuffer())).toEqual(dataUrlBytes(fortyUrl));
  });

  it("has no stream for an unfinished upload", async () => {
    const created = await writeJson(org, "POST", "/v2/content/", { contentSize: 20_000 });
    const key = created.body.contentKey;
    expect((await call(`/hls/${key}/h1-1/master.m3u8`)).status).toBe(404);
  });

  it("packages once: the index is stored beside the media by E2", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const master = await urlHlsOf(key);
    const version = master.split("/")[5];
    await expect
      .poll(async () => (await env.MEDIA.head(`${key}/hls/${version}/index.json`)) !== null, {
        timeout: SETTLED_MS,
      })
      .toBe(true);
    expect(await env.MEDIA.head(`${key}/hls/${version}/samples.bin`)).not.toBeNull();
  });

  it("keeps an operator's urlHLS over the service's", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    expect(
      (
        await admin(`/admin/videos/${key}`, "PATCH", {
          urlHLS: "https://cdn.example.com/x/master.m3u8",
        })
      ).res.status,
    ).toBe(200);
    expect(await urlHlsOf(key)).toBe("https://cdn.example.com/x/master.m3u8");
  });
});

describe("the embeddable player page", () => {
  it("names the stream, the file, the poster and the sync code, with a strict CSP that any site may frame", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl), {
      title: `Quotes "and" <tags>`,
      subtitles: [
        { en: "https://cdn.example.com/en.vtt", fr: "https://cdn.example.com/fr.srt" },
        { "pt-BR": "https://cdn.example.com/pt.vtt" },
      ],
    });
    const master = await urlHlsOf(key);
    const version = master.split("/").at(-2);
    const res = await call(`/embed/${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors *");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain(`data-hls="${master}"`);
    expect(html).toContain(`data-mp4="${ORIGIN}/media/${key}/${key}.mp4"`);
    expect(html).toContain(`data-sync-code="${org.syncCode}"`);
    expect(html).toContain(`poster="${ORIGIN}/thumbnails/${key}.jpg"`);
    // The WebVTT files as tracks of the service's copies (same origin); the SRT is not one.
    expect(html.match(/<track [^>]*>/g)).toEqual([
      `<track kind="subtitles" src="/hls/${key}/${version}/subtitles-0.vtt" srclang="en" label="English">`,
      `<track kind="subtitles" src="/hls/${key}/${version}/subtitles-1.vtt" srclang="pt-BR" label="Brazilian Portuguese">`,
    ]);
    expect(html).toContain('data-hls-subtitles="yes"');
    // The title is the publisher's text: escaped, never markup.
    expect(html).toContain("<title>Quotes &#34;and&#34; &#60;tags&#62;</title>");
    expect(html).not.toContain("<tags>");
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });

  it("names the player configuration it reads, and lets ads load from other origins", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const res = await call(`/embed/${key}?config=Xk3f9Qa2Lm`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<div id="player" class="evc-host" data-config="Xk3f9Qa2Lm">');
    expect(html).toContain('<script type="module" src="/embed/player.js"></script>');
    // VAST documents (connect), creatives (media) and pixels (img) from ad servers; http: only
    // because this service itself is reached over plain http (as in development).
    const csp = res.headers.get("Content-Security-Policy")!;
    const scheme = ORIGIN.startsWith("http:") ? "https: http:" : "https:";
    for (const directive of ["connect-src", "media-src", "img-src"])
      expect(csp).toMatch(new RegExp(`${directive} [^;]*${scheme}`));
    if (scheme === "https:") expect(csp).not.toContain(" http:");
    expect(csp).toContain("script-src 'self';");
    const bad = await callJson(`/embed/${key}?config=${"x".repeat(65)}`);
    expect(bad.res.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("config");
  });

  it("is not served for a removed or unknown video, and names a bad query", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    expect((await admin(`/admin/videos/${key}`, "PATCH", { removed: true })).res.status).toBe(200);
    expect((await call(`/embed/${key}`)).status).toBe(404);
    expect((await call(`/embed/nosuch1`)).status).toBe(404);
    expect((await admin(`/admin/videos/${key}`, "PATCH", { removed: false })).res.status).toBe(200);
    const bad = await callJson(`/embed/${key}?analytics=maybe`);
    expect(bad.res.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("must be on or off");
    const page = await callJson(`/embed/${key}?page_url=javascript:alert(1)`);
    expect(page.res.status).toBe(400);
    expect(JSON.stringify(page.body)).toContain("page_url");
  });

  it("takes empty parameters (what CMS templates emit) as absent: the defaults", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const res = await call(`/embed/${key}?config=&player_id=&page_url=`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('data-config=""');
    const withPage = await call(
      `/embed/${key}?page_url=${encodeURIComponent("https://news.example/story?id=7")}`,
    );
    expect(withPage.status).toBe(200);
  });
});
