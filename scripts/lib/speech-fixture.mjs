// A video whose audio is speech from a known text, made here (nothing large is committed): each
// sentence spoken by Debian's flite, a pause between them, over a plain picture (ffmpeg, H.264
// and AAC). flite says when it spoke each sound (-psdur), so every word's start and end is known
// to the millisecond: what the captions made from the audio are checked against (the workers and
// e2e tests, bench/captions.mjs). The voice and the text are the ones the local speech engine
// (pocketsphinx, US English) reads best: a stable, small word error rate.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { wavFile } from "../../containers/transcoder/audio.mjs";

const run = promisify(execFile);

/** What a sports clip might say: common words, a few a search can find ("goalkeeper", "penalty"). */
export const SPEECH_SENTENCES = [
  "Welcome to the evening sports report.",
  "The home team won the cup final tonight.",
  "Our goalkeeper saved a penalty in the second half.",
  "The captain scored twice before the break.",
  "Fans celebrated in the city center until midnight.",
  "The next game is on Saturday afternoon.",
];

const RATE = 16_000;

/** Whether this machine has what the speech fixture and the local engine need. */
export async function speechTools() {
  const missing = [];
  for (const [tool, args] of [
    ["flite", ["--version"]],
    ["pocketsphinx_continuous", ["-help", "no"]],
    ["ffmpeg", ["-version"]],
  ]) {
    try {
      await run(tool, args);
    } catch (err) {
      // pocketsphinx_continuous exits non-zero after printing its help: it is there.
      if (err.code === "ENOENT") missing.push(tool);
    }
  }
  return missing;
}

/** A sentence's words as flite reads them (letters only), lower-cased. */
export const wordsOf = (text) => text.toLowerCase().match(/[a-z']+/g) ?? [];

async function flite(voice, stretch, text, out, extra) {
  const { stdout } = await run("flite", [
    ...["-voice", voice, "--setf", `duration_stretch=${stretch}`],
    ...extra,
    ...["-t", text, "-o", out],
  ]);
  return stdout;
}

/** The 16-bit samples of a WAV flite wrote (mono, 16 kHz for the rms voice). */
async function samplesOf(path) {
  const bytes = await readFile(path);
  const data = bytes.indexOf("data", 12, "ascii");
  if (data < 0 || bytes.readUInt32LE(24) !== RATE || bytes.readUInt16LE(22) !== 1)
    throw new Error(`${path}: not a 16 kHz mono WAV`);
  const length = bytes.readUInt32LE(data + 4);
  return new Int16Array(
    bytes.buffer.slice(bytes.byteOffset + data + 8, bytes.byteOffset + data + 8 + length),
  );
}

/**
 * Makes `dir/<name>.mp4` (H.264, or HEVC with `hevc`): `lead` seconds of silence, then each
 * sentence followed by `gap` seconds of silence, spoken by `voice`. Answers its path, every word with its start and end
 * (seconds into the video, from flite's own timing of its sounds), and its length.
 */
export async function makeSpeechVideo(
  dir,
  {
    sentences = SPEECH_SENTENCES,
    voice = "rms",
    stretch = 1.1,
    lead = 0.5,
    gap = 1,
    name = "speech",
    // HEVC instead of H.264: a source the service transcodes before it publishes it.
    hevc = false,
  } = {},
) {
  const phonesOf = new Map();
  const words = [];
  const parts = [new Int16Array(Math.round(lead * RATE))];
  let at = lead;
  for (const [i, sentence] of sentences.entries()) {
    const file = join(dir, `${name}-${i}.wav`);
    // "pau:0.195 aw:0.352 …": each sound and when it ends.
    const timing = (await flite(voice, stretch, sentence, file, ["-psdur"]))
      .trim()
      .split(/\s+/)
      .map((s) => {
        const [phone, end] = s.split(":");
        return { phone, end: Number(end) };
      });
    const sounds = [];
    timing.forEach((s, k) => {
      if (s.phone !== "pau") sounds.push({ start: k ? timing[k - 1].end : 0, end: s.end });
    });
    let next = 0;
    for (const word of wordsOf(sentence)) {
      if (!phonesOf.has(word)) {
        const phones = (await flite(voice, stretch, word, "none", ["-ps"])).trim().split(/\s+/);
        phonesOf.set(word, phones.filter((p) => p !== "pau").length);
      }
      const count = phonesOf.get(word);
      const first = sounds[next];
      const last = sounds[next + count - 1];
      if (!first || !last)
        throw new Error(`flite's sounds do not match the words of "${sentence}"`);
      words.push({ word, start: at + first.start, end: at + last.end });
      next += count;
    }
    if (next !== sounds.length)
      throw new Error(`flite's sounds do not match the words of "${sentence}"`);
    const samples = await samplesOf(file);
    parts.push(samples, new Int16Array(Math.round(gap * RATE)));
    at += samples.length / RATE + gap;
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Int16Array(total);
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  const audio = join(dir, `${name}.wav`);
  await writeFile(audio, wavFile(all, RATE));
  const path = join(dir, `${name}.mp4`);
  const seconds = total / RATE;
  await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", "color=c=0x1d3557:s=320x180:r=25", "-i", audio],
    ...["-t", seconds.toFixed(3), "-pix_fmt", "yuv420p", "-preset", "veryfast"],
    ...(hevc
      ? ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=error"]
      : ["-c:v", "libx264"]),
    ...["-g", "50", "-c:a", "aac", "-b:a", "64k", "-ar", "44100", "-ac", "1"],
    ...["-movflags", "+faststart", path],
  ]);
  return { path, words, seconds };
}

export { alignedWords, wordErrorRate } from "./word-errors.mjs";
