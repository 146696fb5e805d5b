// The local speech engine, the offline stand-in for Workers AI's Whisper (src/media/speech.ts):
// POST /transcribe?language=en with a 16 kHz mono 16-bit WAV as the body answers
// {language: "en", words: [{word, start, end}]} (seconds into the WAV), recognised by Debian's
// pocketsphinx (`pocketsphinx_continuous`, package pocketsphinx) with its US-English acoustic
// model, language model and dictionary (package pocketsphinx-en-us): nothing is downloaded.
// npm run dev serves it on a loopback port (SPEECH_URL); the workers tests bind it as the SPEECH
// service (vitest.config.ts). GET /healthz answers "ok".
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  errorResponse,
  Refused,
  readBody,
  runTool,
  serveFetch,
} from "../../containers/transcoder/ffmpeg-service.mjs";

/** The one language its model knows. */
export const LOCAL_LANGUAGES = ["en"];
/** Ten minutes of 16 kHz 16-bit audio (the worker sends pieces of at most 30 s). */
export const MAX_WAV_BYTES = 600 * 32_000 + 44;
/** pocketsphinx runs at a few times real time; a piece of 30 s takes seconds. */
export const RECOGNITION_TIMEOUT_MS = 120_000;

/** Whether pocketsphinx (and its US-English model) is installed here. */
export function hasPocketsphinx() {
  return new Promise((resolve) =>
    execFile("pocketsphinx_continuous", ["-help", "no"], (err) => resolve(err?.code !== "ENOENT")),
  );
}

/**
 * pocketsphinx's `-time yes` lines as words: `goalkeeper 8.250 9.060 0.974`. Its markers
 * (<s>, </s>, <sil>, [NOISE], ++…++) are not words; a pronunciation variant's `(2)` goes.
 */
export function parseRecognition(stdout) {
  const words = [];
  for (const line of stdout.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 4) continue;
    const [token, start, end] = fields;
    if (!/^\d+(\.\d+)?$/.test(start) || !/^\d+(\.\d+)?$/.test(end)) continue;
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(token)) continue;
    const word = token.replace(/\(\d+\)$/, "");
    if (word) words.push({ word, start: Number(start), end: Number(end) });
  }
  return words;
}

/** pocketsphinx on a WAV file: its word lines, from its stdout. */
const recognise = async (wav, timeoutMs) =>
  (
    await runTool(
      "pocketsphinx_continuous",
      ["-infile", wav, "-time", "yes", "-logfn", "/dev/null"],
      timeoutMs,
      "not recognised",
    )
  ).toString("utf8");

/** The words of a WAV piece (a fetch-style handler). */
export async function speechResponse(request, { timeoutMs = RECOGNITION_TIMEOUT_MS } = {}) {
  const url = new URL(request.url);
  if (request.method === "GET" && url.pathname === "/healthz") return new Response("ok");
  if (request.method !== "POST" || url.pathname !== "/transcribe" || !request.body)
    return new Response("POST /transcribe?language=en with a 16 kHz mono WAV as the body", {
      status: 400,
    });
  const language = url.searchParams.get("language");
  if (language !== null && !LOCAL_LANGUAGES.includes(language))
    return new Response(
      `the local speech engine (pocketsphinx, US English) transcribes ${LOCAL_LANGUAGES.join(", ")} only, not ${language.slice(0, 20)}`,
      { status: 400 },
    );
  let dir;
  try {
    const body = await readBody(request.body, MAX_WAV_BYTES, "the audio");
    if (
      body.length < 44 ||
      body.toString("ascii", 0, 4) !== "RIFF" ||
      body.readUInt32LE(24) !== 16_000
    )
      throw new Refused(415, "the audio must be a 16 kHz mono WAV");
    dir = await mkdtemp(join(tmpdir(), "speech-"));
    const wav = join(dir, "piece.wav");
    await writeFile(wav, body);
    const words = parseRecognition(await recognise(wav, timeoutMs));
    return Response.json({ language: "en", words });
  } catch (err) {
    return errorResponse(err);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** Serves speechResponse on a loopback port; resolves to its URL and a close function. */
export function startSpeechServer({ port = 0, ...options } = {}) {
  return serveFetch((request) => speechResponse(request, options), { port, host: "127.0.0.1" });
}
