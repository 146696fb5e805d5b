// What a rendition segment costs to serve, as rows of the load benchmark: a rung's media segment
// answered from the edge cache ("cached": the same URL again) and on an edge miss ("cold": each
// request another query, what a location without a copy pays), each as a share of GET /healthz
// measured between them, interleaved pass by pass. A rung's segment is packaged once, by its
// first request (docs/renditions.md): the cold row reads that one stored object. The first
// requests themselves (packaging and storing) are timed one by one beside them.
//
// Measured with bench/lib/raw-load.mjs, which does not look at the bodies: autocannon parses
// every body in JavaScript and, on a 400 KB segment, measures itself more than the server.
//
//   import { renditionRows, startRenditionTranscoder } from "./lib/rendition-rows.mjs";
//   const transcoder = await startRenditionTranscoder();       // the server needs its URL:
//   const server = await startLoadServer({ vars: { ...transcoder.vars, ... } });
//   const { rows, notes } = await renditionRows({ url: server.url });
//   await transcoder.close();
// (or startRenditionServer(dir) for a state, transcoder and worker of their own).
//
// `npm run bench:rendition-rows` runs it alone (bench/rendition-rows.mjs).
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { hasFfmpeg, startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { prepareState, startLoadServer } from "./load-server.mjs";
import { apiOf, DEMO_CREDENTIALS, makeSource, publishWithLadder } from "./publish.mjs";
import { rawLoad } from "./raw-load.mjs";
import { median } from "./stats.mjs";

const ROOT = new URL("../../", import.meta.url);

/**
 * The largest script of the player's build (hls.js, about 400 KB), served by the platform's static
 * assets before the worker runs: what answering that many bytes costs here without any worker
 * code, the ceiling of a worker's answer of a segment's size.
 */
function staticControl() {
  const dir = new URL("dist/public/embed/chunks/", ROOT);
  const files = readdirSync(dir).map((name) => ({ name, size: statSync(new URL(name, dir)).size }));
  const largest = files.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error("no player build in dist/public: run npm run build");
  return { path: `/embed/chunks/${largest.name}`, size: largest.size };
}

export { DEMO_CREDENTIALS };

/** The goals: a cold rung segment at least 30 % of /healthz, a cached one at least 95 %. */
export const GOALS = { cold: 0.3, cached: 0.95 };

/**
 * A worker that makes rungs, on a state of its own in `dir` (prepared as `npm run dev` does),
 * with the transcoder program beside it and the rate limits raised as `bench:load` raises them.
 * Resolves with `{ url, stop() }` (stop ends both).
 */
export async function startRenditionServer(dir, log = (line) => console.error(line)) {
  for (const line of await prepareState({ persistTo: dir })) log(line);
  const transcoder = await startRenditionTranscoder();
  try {
    const server = await startLoadServer({
      persistTo: dir,
      vars: {
        ...transcoder.vars,
        RATE_LIMIT_PER_MINUTE: "100000000",
        PUBLIC_READS_PER_IP_PER_MINUTE: "10000000",
      },
    });
    return {
      url: server.url,
      stop: async () => {
        await server.stop();
        await transcoder.close();
      },
    };
  } catch (err) {
    await transcoder.close();
    throw err;
  }
}

/**
 * The transcoder program as a local process (containers/transcoder), for a server that makes
 * rungs: pass `vars` to startLoadServer. Throws without ffmpeg.
 */
export async function startRenditionTranscoder() {
  if (!(await hasFfmpeg())) throw new Error("rendition rows need ffmpeg (the transcoder's)");
  const transcoder = await startTranscoderServer();
  return { vars: { TRANSCODER_URL: transcoder.url }, close: () => transcoder.close() };
}

/**
 * A 24 s 1280x720 H.264/AAC file with noise (about 4 Mbit/s, a keyframe every 2 s), published by
 * `credentials`' organization with a one-rung ladder (r360 at 365 kbit/s, Apple's row), the rung
 * ready. Resolves with the stream's path and the rung's segment names.
 */
async function publishWithRung(url, credentials, log) {
  const dir = mkdtempSync(join(tmpdir(), "bench-rendition-rows-"));
  try {
    const source = join(dir, "source.mp4");
    await makeSource(source, { width: 1280, height: 720, seconds: 24, bitrate: "4M" });
    const { contentKey, stream, ladderSeconds } = await publishWithLadder(
      url,
      credentials,
      source,
      [{ height: 360, bitrate: 365_000 }],
      "bench rendition rows",
    );
    log(`r360 ready ${ladderSeconds.toFixed(0)} s after E2`);
    const playlist = await (await fetch(`${stream}r360-video.m3u8`)).text();
    const segments = playlist.split("\n").filter((l) => l.endsWith(".m4s"));
    return { contentKey, stream: new URL(stream).pathname, segments };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One request's time (ms) and size, its body read whole. */
async function timed(url) {
  const started = performance.now();
  const res = await fetch(url);
  const bytes = (await res.arrayBuffer()).byteLength;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return { ms: performance.now() - started, bytes };
}

/**
 * The rendition rows against the server at `url` (it must reach a transcoder: startRenditionTranscoder).
 * `credentials`: an organization's sync code, API key and secret (default: the demo organization).
 * Resolves with `{ rows, notes }`: rows `{ name, kind, rps, ratio, goal, p50, p99, bytes, statuses }`
 * (ratio: to /healthz over the same passes; kind "baseline", "control" (a static file of about
 * a segment's size: the ceiling here), "cached", "cold" or "range" (the stored segment read
 * without the edge cache's lookup and put: what of the cold row is the cache's)), notes the lines to print beside
 * them (sizes, the first requests' times). The video it publishes is deleted at the end.
 */
export async function renditionRows({
  url,
  credentials = DEMO_CREDENTIALS,
  connections = 10,
  seconds = 4,
  passes = 3,
  log = (line) => console.error(line),
}) {
  const { contentKey, stream, segments } = await publishWithRung(url, credentials, log);
  try {
    return await measure({ url, stream, segments, connections, seconds, passes });
  } finally {
    await apiOf(url, credentials)("DELETE", `/v2/content?contentKey=${contentKey}`);
  }
}

async function measure({ url, stream, segments, connections, seconds, passes }) {
  // A 6 s segment (the first is 2 s): the size the issue measured, about 374 KB at r360.
  const segment = `${stream}${segments[2] ?? segments.at(-1)}`;
  const notes = [];
  // First requests: each packages its segment and stores it (after the answer); then a cold
  // request of the same segment reads the stored one. One at a time, every segment of the rung.
  const first = [];
  const coldAfter = [];
  for (const name of segments) {
    first.push((await timed(`${url}${stream}${name}`)).ms);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the put, after the answer
    coldAfter.push((await timed(`${url}${stream}${name}?cold=${Date.now()}`)).ms);
  }
  const size = (await timed(`${url}${segment}`)).bytes;
  notes.push(
    `rung segment measured: ${segment.split("/").at(-1)}, ${Math.round(size / 1000)} KB; ` +
      `one request at a time over the rung's ${segments.length} segments: the first ` +
      `(packaged and stored) ${median(first).toFixed(1)} ms median, an edge miss after it ` +
      `(the stored segment) ${median(coldAfter).toFixed(1)} ms median`,
  );
  const control = staticControl();
  const plans = [
    { name: "GET /healthz (no D1)", kind: "baseline", path: () => "/healthz" },
    {
      name: `static asset of ${Math.round(control.size / 1000)} KB (no worker code)`,
      kind: "control",
      path: () => control.path,
    },
    { name: "rung segment, edge cache hit", kind: "cached", path: () => segment },
    { name: "rung segment, edge miss (stored)", kind: "cold", path: (n) => `${segment}?c=${n}` },
    {
      name: "rung segment, Range: bytes=0- (no edge cache: the stored object alone)",
      kind: "range",
      path: () => segment,
      headers: { Range: "bytes=0-" },
    },
  ];
  const totals = new Map(plans.map((p) => [p.name, { requests: 0, seconds: 0, runs: [] }]));
  for (let pass = 0; pass < passes; pass++) {
    for (const plan of plans) {
      const result = await rawLoad({
        url,
        path: plan.path,
        connections,
        seconds,
        headers: plan.headers,
      });
      const total = totals.get(plan.name);
      total.requests += result.requests;
      total.seconds += result.requests / result.rps;
      total.runs.push(result);
    }
  }
  const rpsOf = (name) => {
    const t = totals.get(name);
    return t.requests / t.seconds;
  };
  const baseline = rpsOf(plans[0].name);
  const rows = plans.map((plan) => {
    const { runs } = totals.get(plan.name);
    const statuses = {};
    for (const r of runs)
      for (const [code, n] of Object.entries(r.statuses))
        statuses[code] = (statuses[code] ?? 0) + n;
    const rps = rpsOf(plan.name);
    return {
      name: plan.name,
      kind: plan.kind,
      rps,
      ratio: rps / baseline,
      goal: GOALS[plan.kind] ?? null,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      bytes: plan.kind === "baseline" ? null : plan.kind === "control" ? control.size : size,
      statuses,
      errors: runs.reduce((n, r) => n + r.errors, 0),
    };
  });
  return { rows, notes };
}
