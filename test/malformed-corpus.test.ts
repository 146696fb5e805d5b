// The malformed MP4/MOV corpus (test/malformed-corpus.ts) through the real upload flow (E1,
// parts, E2 against local R2 and D1), then the stream of each file E2 accepts (issue 34): a file
// is refused at E2 with a 400 naming what is wrong, or it streams (master, media playlist,
// init, segments, DASH), or it is published without a stream (no urlHLS, its stream answers 404
// from a marker stored beside the media); never a 5xx. Also: a file published before E2
// packaged it is marked unstreamable on its first stream request, once.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { hlsVersion } from "../src/storage/layout";
import movUrl from "./fixtures/h264-aac.mov?inline";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import fragUrl from "./fixtures/h264-aac-frag.mp4?inline";
import moovEndUrl from "./fixtures/h264-aac-moov-end.mp4?inline";
import noAudioUrl from "./fixtures/h264-noaudio.mp4?inline";
import {
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  readHeaders,
  type TestOrg,
  uploadParts,
  writeJson,
} from "./helpers";
import { type CorpusFile, malformedCorpus } from "./malformed-corpus";
import { boxesIn } from "./media-fmp4-synth";

let org: TestOrg;
beforeAll(async () => {
  org = await createOrg();
});

const corpus = malformedCorpus({
  faststart: dataUrlBytes(faststartUrl),
  moovEnd: dataUrlBytes(moovEndUrl),
  mov: dataUrlBytes(movUrl),
  frag: dataUrlBytes(fragUrl),
  noAudio: dataUrlBytes(noAudioUrl),
});

/** E1, every part, E2: the E2 answer and the content key. */
async function upload(file: CorpusFile) {
  const created = await writeJson(org, "POST", "/v2/content/", {
    contentSize: file.bytes.byteLength,
    title: file.name,
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  const data = created.body.contentUploadData;
  const parts = await uploadParts(data.signedUrls, file.bytes);
  const done = await writeJson(org, "POST", "/v2/content/complete", {
    uploadId: data.uploadId,
    key: data.key,
    parts,
  });
  return { ...done, contentKey: created.body.contentKey as string, key: data.key as string };
}

/** The record E6 lists for a content key. */
async function recordOf(contentKey: string) {
  const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  return body.data.find((v: any) => v.contentKey === contentKey);
}

async function contentRow(contentKey: string) {
  return env.DB.prepare("select id, stream_error from contents where content_key = ?")
    .bind(contentKey)
    .first<{ id: number; stream_error: string | null }>();
}

/** The service's stream URL of a content row (what urlHLS would be). */
const streamBase = (contentKey: string, id: number) => `/hls/${contentKey}/${hlsVersion(id)}/`;

const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

/** Every file of the stream answers 200; segments are moof + mdat. Returns the segment count. */
async function expectStreams(urlHLS: string): Promise<number> {
  const base = urlHLS.slice(ORIGIN.length).replace(/master\.m3u8$/, "");
  for (const file of ["master.m3u8", "init.mp4", "manifest.mpd"]) {
    const res = await call(`${base}${file}`);
    expect(res.status, file).toBe(200);
    await res.arrayBuffer();
  }
  const playlist = await call(`${base}video.m3u8`);
  expect(playlist.status).toBe(200);
  const names = (await textOf(playlist)).split("\n").filter((l) => l.endsWith(".m4s"));
  expect(names.length).toBeGreaterThan(0);
  // The first, one in the middle and the last (a long file has hundreds).
  const picked = [...new Set([0, names.length >> 1, names.length - 1])].map((i) => names[i]!);
  for (const name of picked) {
    const res = await call(`${base}${name}`);
    expect(res.status, name).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(boxesIn(bytes).map((b) => b.type)).toEqual(["moof", "mdat"]);
  }
  return names.length;
}

describe("the malformed corpus through E2 and the stream", () => {
  for (const file of corpus) {
    it(`${file.name}: ${Object.keys(file.expect)[0]}`, async () => {
      const { res, body, contentKey, key } = await upload(file);
      if ("refused" in file.expect) {
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(body.message).toMatch(/^media rejected: /);
        expect(body.message).toMatch(file.expect.refused);
        expect(await env.MEDIA.head(key)).toBeNull();
        return;
      }
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.status).toBe("available");
      const record = await recordOf(contentKey);
      if ("streams" in file.expect) {
        expect(record.urlHLS).toMatch(/\/master\.m3u8$/);
        await expectStreams(record.urlHLS);
        return;
      }
      // Published without a stream: the MP4 serves, urlHLS is null, the stream answers 404 with
      // the reason stored beside the media (so a request never packages again).
      expect(record.urlHLS).toBeNull();
      expect((await call(new URL(record.url).pathname)).status).toBe(200);
      const row = (await contentRow(contentKey))!;
      expect(row.stream_error).toMatch(file.expect.unstreamable);
      const base = streamBase(contentKey, row.id);
      for (const name of ["master.m3u8", "video.m3u8", "0.m4s", "manifest.mpd"]) {
        const answer = await call(`${base}${name}`);
        expect(answer.status, name).toBe(404);
        expect(await textOf(answer)).toMatch(file.expect.unstreamable);
      }
      const stored = await env.MEDIA.get(`${contentKey}/hls/${hlsVersion(row.id)}/index.json`);
      expect(JSON.parse(await stored!.text()).unstreamable).toMatch(file.expect.unstreamable);
    });
  }
});

/**
 * A file published under the older rules, which did not package it at E2: its object put in R2
 * and its row made available directly.
 */
async function publishedBefore(bytes: Uint8Array, title: string) {
  const created = await writeJson(org, "POST", "/v2/content/", {
    contentSize: bytes.byteLength,
    title,
  });
  expect(created.res.status).toBe(200);
  const contentKey = created.body.contentKey as string;
  const mediaKey = created.body.contentUploadData.key as string;
  await env.MEDIA.put(mediaKey, bytes);
  await env.DB.prepare(
    "update contents set status = 'available', upload_id = null, published_at = ?, duration = 2 where content_key = ?",
  )
    .bind(new Date().toISOString(), contentKey)
    .run();
  const row = (await contentRow(contentKey))!;
  expect((await recordOf(contentKey)).urlHLS).toMatch(/master\.m3u8$/);
  return { contentKey, mediaKey, id: row.id };
}

describe("a file published before E2 packaged it", () => {
  it("is marked unstreamable on its first stream request, and never packaged again", async () => {
    // The stsz claims 4,000,000 samples.
    const bad = corpus.find((f) => f.name.startsWith("fixed-size stsz claiming"))!;
    const { contentKey, mediaKey, id } = await publishedBefore(bad.bytes, "published before");

    const base = streamBase(contentKey, id);
    const first = await call(`${base}video.m3u8`);
    expect(first.status).toBe(404);
    expect(await textOf(first)).toMatch(/no HLS stream: .*'stsz' box claims 4000000 samples/);
    expect((await contentRow(contentKey))!.stream_error).toMatch(/'stsz' box claims/);
    expect((await recordOf(contentKey)).urlHLS).toBeNull();

    // Without the file, a second request still answers from the stored marker.
    await env.MEDIA.delete(mediaKey);
    const second = await call(`${base}master.m3u8`);
    expect(second.status).toBe(404);
    expect(await textOf(second)).toMatch(/'stsz' box claims 4000000 samples/);
  });

  it("loses its urlHLS when its marker was stored before records knew of it", async () => {
    const { contentKey, id } = await publishedBefore(dataUrlBytes(faststartUrl), "old marker");
    const reason = "corrupt MP4/MOV file: invalid 'stsz' box in the metadata";
    await env.MEDIA.put(
      `${contentKey}/hls/${hlsVersion(id)}/index.json`,
      JSON.stringify({ format: 1, unstreamable: reason }),
    );
    const res = await call(`${streamBase(contentKey, id)}master.m3u8`);
    expect(res.status).toBe(404);
    expect((await contentRow(contentKey))!.stream_error).toBe(reason);
    expect((await recordOf(contentKey)).urlHLS).toBeNull();
  });
});
