// Automatic captions benchmark (docs/captions.md). Everything it needs is made here:
//  1. Videos whose audio is speech flite made from a known text (scripts/lib/speech-fixture.mjs):
//     the fixture's six sentences (27 s) and the same text four times over (about 2 minutes).
//  2. Publish to captions: the worker as npm run dev runs it (local D1/R2/queues, the transcoder
//     and the speech engine as local processes, the demo organization with automatic captions
//     on): time from E2's answer to the track saved, for each video, runs interleaved with the
//     baseline: the same audio through the transcoder's /audio and the engine directly, one
//     piece after the other, no worker, no queue (what the pipeline adds is the difference).
//  3. What an hour of audio costs in production: Workers AI's Whisper price per minute of audio
//     the engine is given (the jobs' overlap counted, as measured in 2), plus the transcoder's
//     /audio at its measured CPU time per hour of audio on Cloudflare Containers' prices.
// The word error rate of each track is shown beside its time (the local engine's; Whisper's is
// not measured here: no Workers AI account on this machine). Do not rebuild dist/public while it
// runs (npm run build, an e2e run): the worker reloads, and its in-memory queue's jobs are lost.
//
//   npm run bench:captions [-- --runs 3]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startTranscoderServer } from "../containers/transcoder/transcoder.mjs";
import {
  makeSpeechVideo,
  SPEECH_SENTENCES,
  speechTools,
  wordErrorRate,
} from "../scripts/lib/speech-fixture.mjs";
import { startSpeechServer } from "../scripts/lib/speech-service.mjs";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { demoApi, publishFile } from "./lib/publish.mjs";
import { markdownTable } from "./lib/report.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
/** Workers AI, @cf/openai/whisper-large-v3-turbo (developers.cloudflare.com, Unit Pricing). */
const WHISPER_USD_PER_MINUTE = 0.00051;
/** Cloudflare Containers, Workers Paid, beyond the included usage (as bench/renditions.mjs). */
const PRICE = { vcpuSecond: 0.00002, gibSecond: 0.0000025, gbDiskSecond: 0.00000007 };
/** standard-2: 1 vCPU, 6 GiB, 12 GB disk (wrangler.toml). */
const INSTANCE = { vcpu: 1, gib: 6, diskGb: 12 };
/** The worker's piece length (src/domain/captions/generate.ts PIECE_SECONDS). */
const PIECE_SECONDS = 30;

const missing = await speechTools();
if (missing.length) {
  console.error(
    `bench:captions needs ${missing.join(", ")} (apt-get install flite pocketsphinx pocketsphinx-en-us ffmpeg)`,
  );
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "bench-captions-"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
let server;
let transcoder;
let speech;
try {
  const videos = [
    { name: "short", ...(await makeSpeechVideo(dir, { name: "short" })) },
    {
      name: "long",
      ...(await makeSpeechVideo(dir, {
        name: "long",
        sentences: [
          ...SPEECH_SENTENCES,
          ...SPEECH_SENTENCES,
          ...SPEECH_SENTENCES,
          ...SPEECH_SENTENCES,
        ],
      })),
    },
  ];
  for (const v of videos)
    console.log(`made ${v.name}: ${v.seconds.toFixed(1)} s of speech, ${v.words.length} words`);
  transcoder = await startTranscoderServer();
  speech = await startSpeechServer();

  /** The baseline: /audio on the whole file, then each piece to the engine, in turn. */
  async function direct(video) {
    const started = Date.now();
    const res = await fetch(`${transcoder.url}/audio?format=wav&piece=${PIECE_SECONDS}`, {
      method: "POST",
      body: readFileSync(video.path),
    });
    if (!res.ok) throw new Error(`/audio: ${res.status} ${await res.text()}`);
    const audioMs = Date.now() - started;
    const pieces = JSON.parse(res.headers.get("X-Audio-Pieces"));
    const body = new Uint8Array(await res.arrayBuffer());
    let at = 0;
    const heard = [];
    for (const p of pieces) {
      const answer = await fetch(`${speech.url}/transcribe?language=en`, {
        method: "POST",
        body: body.subarray(at, at + p.bytes),
      });
      at += p.bytes;
      heard.push(...(await answer.json()).words.map((w) => w.word));
    }
    return {
      seconds: (Date.now() - started) / 1000,
      audioSeconds: audioMs / 1000,
      wer: wordErrorRate(
        video.words.map((w) => w.word),
        heard,
      ),
    };
  }

  // The MP3 pieces Workers AI would be sent: the transcoder's time per hour of audio (wall time
  // on this busy machine: an upper bound of the CPU time a Container bills).
  const mp3Wall = Date.now();
  const mp3 = await fetch(`${transcoder.url}/audio?format=mp3&piece=${PIECE_SECONDS}`, {
    method: "POST",
    body: readFileSync(videos[1].path),
  });
  if (!mp3.ok) throw new Error(`/audio mp3: ${mp3.status}`);
  const mp3Bytes = (await mp3.arrayBuffer()).byteLength;
  const mp3Seconds = (Date.now() - mp3Wall) / 1000;

  // The worker, the demo organization's automatic captions on.
  const state = join(dir, "state");
  for (const line of await prepareState({ persistTo: state })) console.log(line);
  server = await startLoadServer({
    persistTo: state,
    vars: { TRANSCODER_URL: transcoder.url, SPEECH_URL: speech.url },
  });
  const base = server.url;
  const api = demoApi(base);
  await api("PUT", "/v2/captions/settings", {
    autoCaptions: true,
    autoLanguage: null,
    transcriptSearch: false,
  });

  /** E2's answer to the track saved, through the worker, its queue, the transcoder and the engine. */
  async function published(video) {
    const contentKey = await publishFile(
      base,
      readFileSync(video.path),
      `bench captions ${video.name}`,
    );
    const e2 = Date.now();
    let listed;
    // A hang detector: an hour of audio takes minutes here; the wait ends when the track does.
    const deadline = e2 + 30 * 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`no captions for ${contentKey} after 30 minutes`);
      listed = await api("GET", `/v2/content/captions/${contentKey}`);
      if (listed.automatic && ["ready", "failed"].includes(listed.automatic.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = (Date.now() - e2) / 1000;
    if (listed.automatic.status !== "ready")
      throw new Error(`captions failed: ${listed.automatic.reason}`);
    const track = await api("GET", `/v2/content/captions/${contentKey}/en`);
    const heard = track.cues.flatMap((c) => c.text.split(/\s+/).filter(Boolean));
    return {
      seconds,
      given: listed.automatic.audioSeconds,
      wer: wordErrorRate(
        video.words.map((w) => w.word),
        heard,
      ),
    };
  }

  const rows = [];
  for (const video of videos) {
    const pipeline = [];
    const baseline = [];
    for (let run = 0; run < RUNS; run++) {
      // Interleaved: the baseline, then the pipeline, in the same conditions.
      baseline.push(await direct(video));
      pipeline.push(await published(video));
    }
    rows.push({ video, pipeline, baseline });
  }

  console.log(
    `\n## Publish to captions (npm run dev's worker, transcoder and speech engine; ${RUNS} runs each, interleaved)\n`,
  );
  console.log(
    markdownTable(
      [
        {
          title: "Video",
          value: (r) => `${r.video.seconds.toFixed(0)} s of speech, ${r.video.words.length} words`,
          align: "left",
        },
        {
          title: "E2 → track saved, s (median, range)",
          value: (r) =>
            `${median(r.pipeline.map((p) => p.seconds)).toFixed(1)} (${range(r.pipeline.map((p) => p.seconds))})`,
        },
        {
          title: "baseline: /audio + engine direct, s",
          value: (r) =>
            `${median(r.baseline.map((p) => p.seconds)).toFixed(1)} (${range(r.baseline.map((p) => p.seconds))})`,
        },
        {
          title: "audio given / audio",
          value: (r) => (median(r.pipeline.map((p) => p.given)) / r.video.seconds).toFixed(2),
        },
        {
          title: "WER (pipeline)",
          value: (r) => `${(100 * median(r.pipeline.map((p) => p.wer))).toFixed(1)} %`,
        },
      ],
      rows,
    ),
  );

  // Cost per hour of audio.
  const long = rows[1];
  // An hour is six chunks of CAPTION_CHUNK_SECONDS (600): each inner boundary is heard twice,
  // one 6 s segment on each side, so at most 2 × 6 s more per 600 s (the videos here are one
  // chunk each: their measured ratio is shown above).
  const overlap = 1 + (2 * 6) / 600;
  const whisper = 60 * WHISPER_USD_PER_MINUTE * overlap;
  const transcoderSecondsPerHour = (mp3Seconds / long.video.seconds) * 3600 * overlap;
  const container = {
    cpu: transcoderSecondsPerHour * INSTANCE.vcpu * PRICE.vcpuSecond,
    memory: transcoderSecondsPerHour * INSTANCE.gib * PRICE.gibSecond,
    disk: transcoderSecondsPerHour * INSTANCE.diskGb * PRICE.gbDiskSecond,
  };
  const containerTotal = container.cpu + container.memory + container.disk;
  console.log(`\n## Cost per hour of audio (production prices)\n`);
  console.log(
    markdownTable(
      [
        { title: "Part", value: (r) => r[0], align: "left" },
        { title: "US$ per hour of audio", value: (r) => r[1] },
      ],
      [
        [
          `Workers AI whisper-large-v3-turbo ($${WHISPER_USD_PER_MINUTE}/min × ${overlap.toFixed(2)}: the chunks' overlap)`,
          whisper.toFixed(4),
        ],
        [
          `transcoder /audio (MP3 pieces: ${(transcoderSecondsPerHour / 60).toFixed(1)} instance-minutes of standard-2 at this machine's speed, ${(((mp3Bytes / long.video.seconds) * 3600) / 1e6).toFixed(1)} MB of MP3)`,
          containerTotal.toFixed(4),
        ],
        ["total", (whisper + containerTotal).toFixed(4)],
      ],
    ),
  );
} finally {
  await server?.stop();
  await transcoder?.close();
  await speech?.close();
  rmSync(dir, { recursive: true, force: true });
}
