// Low-latency live through the real worker (docs/live.md "Low latency"): chunked CMAF segments
// POSTed as ffmpeg's segment muxer sends them (the fixtures are its own, test/fixtures/README.md),
// their parts in the LL-HLS playlist while the request is still sending, blocking playlist
// reloads and preload-hinted parts answered once what they wait for arrives, and the same
// decisions before the body as every ingest request.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import seg0 from "./fixtures/live/chunked/seg0.m4s.bin?inline";
import seg1 from "./fixtures/live/chunked/seg1.m4s.bin?inline";
import seg2 from "./fixtures/live/chunked/seg2.m4s.bin?inline";
import { call, createOrg, dataUrlBytes, writeJson } from "./helpers";

const SEGMENTS = [seg0, seg1, seg2].map(dataUrlBytes);
/** The bytes of a segment's init (ftyp + moov): its first two boxes. */
const initLength = (b: Uint8Array) => {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ftyp = view.getUint32(0);
  return ftyp + view.getUint32(ftyp);
};

async function newStream() {
  const org = await createOrg({ plan: "enterprise" });
  const created = await writeJson(org, "POST", "/v2/live", { title: "Derby, second half" });
  expect(created.res.status).toBe(200);
  const stream = created.body as { contentKey: string; ingestBaseUrl: string; streamKey: string };
  const state = async () =>
    (await writeJson(org, "GET", `/v2/live?contentKey=${stream.contentKey}`)).body as {
      url?: string;
      live: { state: string; segments: number; bytes: number };
    };
  return { ...stream, state };
}

/** A request body the test sends piece by piece, as an encoder writing a segment does. */
function sending() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    body,
    send: (bytes: Uint8Array) => controller.enqueue(bytes),
    end: () => controller.close(),
  };
}

const post = (url: string, body: BodyInit) => call(url, { method: "POST", body });
const whole = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });
const lastMsn = (playlist: string) =>
  Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1]) +
  (playlist.match(/^#EXTINF:/gm)?.length ?? 0) -
  1;
const partsAfterLastSegment = (playlist: string) =>
  playlist
    .slice(playlist.lastIndexOf("#EXTINF:"))
    .split("\n")
    .filter((l) => l.startsWith("#EXT-X-PART:")).length;

describe("low-latency ingest (chunked CMAF) and LL-HLS", () => {
  it("lists parts while the segment is sent, holds blocking reloads and hinted parts until they exist", async () => {
    const stream = await newStream();
    const base = stream.ingestBaseUrl;
    expect((await post(`${base}/seg00000.m4s`, whole(SEGMENTS[0]!))).status).toBe(201);
    const live = await stream.state();
    expect(live.live.state).toBe("live");
    // urlHLS is the live master; the encoder's rendition under it is the LL-HLS playlist.
    expect(live.url).toMatch(/\/master\.m3u8$/);
    const url = live.url!.replace(/master\.m3u8$/, "index.m3u8");
    const first = await (await call(url)).text();
    expect(first).toMatch(
      /#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=6\.0,PART-HOLD-BACK=1\.000/,
    );
    expect(first).toMatch(/#EXT-X-PART-INF:PART-TARGET=0\.333/);
    expect(first).toMatch(/#EXT-X-MAP:URI="u0\.mp4"/);
    expect(first).toMatch(/#EXT-X-PART:DURATION=0\.320,URI="u0p0\.m4s",INDEPENDENT=YES\n/);
    expect(lastMsn(first)).toBe(0);
    // The next part is hinted before its segment is announced.
    const hint = /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="(u\d+p0\.m4s)"/.exec(first)![1]!;

    // The second segment, sent in two halves: its first parts are listed (and served) while
    // the request is still open.
    const upload = sending();
    const half = Math.floor(SEGMENTS[1]!.length / 2);
    const answered = post(`${base}/seg00001.m4s`, upload.body);
    const hinted = call(new URL(hint, url).toString());
    const blockedPart = call(`${url}?_HLS_msn=1&_HLS_part=0`);
    const blockedSegment = call(`${url}?_HLS_msn=1`);
    upload.send(SEGMENTS[1]!.subarray(0, half));
    // The reload waiting for part 0 of segment 1 answers with it, segment 1 not whole yet.
    const partText = await (await blockedPart).text();
    expect(lastMsn(partText)).toBe(0);
    expect(partsAfterLastSegment(partText)).toBeGreaterThanOrEqual(1);
    expect(partText).toContain(`URI="${hint}",INDEPENDENT=YES`);
    // The hinted part, asked before it existed, is served: fragments (a moof first).
    const part = await hinted;
    expect(part.status).toBe(200);
    const partBytes = new Uint8Array(await part.arrayBuffer());
    expect(String.fromCharCode(...partBytes.subarray(4, 8))).toBe("moof");

    upload.send(SEGMENTS[1]!.subarray(half));
    upload.end();
    expect((await answered).status).toBe(201);
    // The reload waiting for segment 1 answers once it is whole.
    const segmentText = await (await blockedSegment).text();
    expect(lastMsn(segmentText)).toBe(1);
    // Segment 1's bytes are its parts, in order (init left out: it is the EXT-X-MAP).
    const u = segmentText.match(/^u\d+\.m4s$/gm)!;
    const stored = new Uint8Array(await (await call(new URL(u[1]!, url).toString())).arrayBuffer());
    expect(String.fromCharCode(...stored.subarray(4, 8))).toBe("moof");
    const parts = [
      ...segmentText.matchAll(new RegExp(`URI="(${u[1]!.replace(".m4s", "")}p\\d+\\.m4s)"`, "g")),
    ].map((m) => m[1]!);
    const joined = await Promise.all(
      parts.map(
        async (p) => new Uint8Array(await (await call(new URL(p, url).toString())).arrayBuffer()),
      ),
    );
    expect(Buffer.concat(joined)).toEqual(Buffer.from(stored));

    // Far ahead of the edge: 400 at once; a part without its segment: 400.
    const far = await call(`${url}?_HLS_msn=9`);
    expect(far.status).toBe(400);
    expect(((await far.json()) as { error: string }).error).toMatch(/too far ahead/);
    expect((await call(`${url}?_HLS_part=0`)).status).toBe(400);
    expect((await call(`${url}?_HLS_msn=x`)).status).toBe(400);

    // The segment list with ENDLIST (ffmpeg's last -segment_list) ends the stream once the
    // last segment is in; the recording is whole segments behind one init, no parts.
    const list = (names: string[], ended: boolean) =>
      `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-TARGETDURATION:1\n${names.map((n) => `#EXTINF:1.0,\n${n}`).join("\n")}\n${ended ? "#EXT-X-ENDLIST\n" : ""}`;
    const names = ["seg00000.m4s", "seg00001.m4s", "seg00002.m4s"];
    expect((await post(`${base}/index.m3u8`, list(names, true))).status).toBe(200);
    expect((await stream.state()).live.state).toBe("live");
    expect((await post(`${base}/seg00002.m4s`, whole(SEGMENTS[2]!))).status).toBe(201);
    const ended = await stream.state();
    expect(ended.live.state).toBe("ended");
    expect(ended.live.segments).toBe(3);
    const recording = await (await call(url.replace("index.m3u8", "recording.m3u8"))).text();
    expect(recording.match(/#EXT-X-MAP/g)).toHaveLength(1);
    expect(recording).not.toMatch(/EXT-X-PART|PRELOAD-HINT/);
    expect(recording.match(/^#EXTINF:/gm)).toHaveLength(3);
  });

  it("lists the parts of the last three segments only, and keeps a few segments' rows of them", async () => {
    const stream = await newStream();
    // Nine segments (the three fixtures again under new names: the service reads no timestamps).
    for (let n = 0; n < 9; n++)
      expect(
        (await post(`${stream.ingestBaseUrl}/seg${n}.m4s`, whole(SEGMENTS[n % 3]!))).status,
      ).toBe(201);
    const playlist = await (
      await call((await stream.state()).url!.replace(/master\.m3u8$/, "index.m3u8"))
    ).text();
    const withParts = new Set(
      [...playlist.matchAll(/#EXT-X-PART:.*URI="(u\d+)p\d+\.m4s"/g)].map((m) => m[1]),
    );
    expect(withParts.size).toBe(3);
    expect(playlist.match(/^#EXTINF/gm)).toHaveLength(9);
    const stub = env.LIVE_STREAMS.get(env.LIVE_STREAMS.idFromName(stream.contentKey));
    const rows = await runInDurableObject(
      stub,
      (object) =>
        (object as unknown as { ctx: DurableObjectState }).ctx.storage.sql
          .exec("SELECT count(DISTINCT file) AS n FROM ll_parts")
          .one().n as number,
    );
    expect(rows).toBeLessThanOrEqual(6);
  });

  it("decides a POST before its body, and refuses what is not a chunked segment", async () => {
    const stream = await newStream();
    const base = stream.ingestBaseUrl;
    const wrongKey = base.replace(stream.streamKey, `lsk_${"w".repeat(32)}`);
    // A body that never ends: only an answer given before reading it comes back.
    const stalled = sending();
    stalled.send(SEGMENTS[0]!.subarray(0, 100));
    const refused = await post(`${wrongKey}/seg00000.m4s`, stalled.body);
    expect(refused.status).toBe(403);
    stalled.end();
    // Not fragmented MP4 with its init first; a file type the POST does not take.
    const notCmaf = await post(
      `${base}/seg00000.m4s`,
      whole(SEGMENTS[0]!.subarray(initLength(SEGMENTS[0]!))),
    );
    expect(notCmaf.status).toBe(400);
    expect(((await notCmaf.json()) as { error: string }).error).toMatch(/init segment/);
    expect((await post(`${base}/seg00000.ts`, whole(SEGMENTS[0]!))).status).toBe(400);
    // Past LIVE_SEGMENT_MAX_BYTES (1 MiB in the tests): 413, nothing kept (its parts included).
    const repeated = SEGMENTS[0]!.subarray(initLength(SEGMENTS[0]!));
    const big = Buffer.concat([SEGMENTS[0]!, ...Array.from({ length: 80 }, () => repeated)]);
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const tooLarge = await post(`${base}/seg00001.m4s`, whole(big));
    expect(tooLarge.status).toBe(413);
    const state = await stream.state();
    expect(state.live.state).toBe("idle");
    expect(state.live.segments).toBe(0);
  });
});
