// Automatic captions' audio path outside the worker: the transcoder's /audio (a chunk's audio as
// 16 kHz pieces cut in quiet moments, WAV or MP3) and the local speech engine (pocketsphinx)
// on a video whose speech flite made from a known text. Skipped, saying why, without ffmpeg,
// flite or pocketsphinx (.ci/run installs them).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIO_RATE, cutPoints, wavFile } from "../../containers/transcoder/audio.mjs";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import {
  alignedWords,
  makeSpeechVideo,
  SPEECH_SENTENCES,
  speechTools,
  wordErrorRate,
  wordsOf,
} from "../../scripts/lib/speech-fixture.mjs";
import { parseRecognition, startSpeechServer } from "../../scripts/lib/speech-service.mjs";
import { audioPieces } from "../../src/media/transcoder";

const run = promisify(execFile);
const missing = await speechTools();
if (missing.length)
  console.warn(
    `speech-audio: ${missing.join(", ")} missing: the speech tests are SKIPPED (apt-get install flite pocketsphinx pocketsphinx-en-us ffmpeg)`,
  );

describe("cutting audio into pieces", () => {
  /** A tone with silences at the given seconds (each 0.5 s long). */
  function tone(seconds: number, silences: number[]) {
    const pcm = new Int16Array(seconds * AUDIO_RATE);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin(i / 3));
    for (const s of silences) pcm.fill(0, s * AUDIO_RATE, (s + 0.5) * AUDIO_RATE);
    return pcm;
  }

  it("cuts in the quietest moment of the last 10 s before each limit", () => {
    const cuts = cutPoints(tone(70, [24, 51]), AUDIO_RATE, 30).map((c: number) => c / AUDIO_RATE);
    expect(cuts).toHaveLength(2);
    expect(cuts[0]).toBeGreaterThanOrEqual(24);
    expect(cuts[0]).toBeLessThanOrEqual(24.5);
    expect(cuts[1]).toBeGreaterThanOrEqual(51);
    expect(cuts[1]).toBeLessThanOrEqual(51.5);
  });

  it("keeps every piece within the limit when nothing is quiet, and cuts nothing short", () => {
    const pcm = tone(95, []);
    const bounds = [0, ...cutPoints(pcm, AUDIO_RATE, 30), pcm.length];
    for (let i = 1; i < bounds.length; i++) {
      expect(bounds[i]! - bounds[i - 1]!).toBeLessThanOrEqual(30 * AUDIO_RATE);
      expect(bounds[i]!).toBeGreaterThan(bounds[i - 1]!);
    }
    expect(cutPoints(tone(30, []), AUDIO_RATE, 30)).toEqual([]);
  });

  it("writes a WAV header pocketsphinx reads, and reads its word lines", () => {
    const file = wavFile(new Int16Array([1, -1, 2]), AUDIO_RATE);
    expect(file.length).toBe(50);
    expect(file.toString("ascii", 0, 4)).toBe("RIFF");
    expect(file.readUInt32LE(24)).toBe(16_000);
    expect(
      parseRecognition(
        "the home team\n<s> 0.1 0.2 1\nthe(2) 3.96 4.24 0.35\n<sil> 4.2 4.3 1\n[NOISE] 5 6 1\nhome 4.25 4.59 0.92\n</s> 7 7.1 1\n",
      ),
    ).toEqual([
      { word: "the", start: 3.96, end: 4.24 },
      { word: "home", start: 4.25, end: 4.59 },
    ]);
  });
});

describe.skipIf(missing.length > 0)("speech from flite through /audio and pocketsphinx", () => {
  let dir: string;
  let transcoder: { url: string; close(): Promise<void> };
  let speech: { url: string; close(): Promise<void> };
  let video: {
    path: string;
    words: { word: string; start: number; end: number }[];
    seconds: number;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "speech-audio-"));
    [transcoder, speech, video] = await Promise.all([
      startTranscoderServer(),
      startSpeechServer(),
      makeSpeechVideo(dir),
    ]);
  });
  afterAll(async () => {
    await Promise.all([transcoder?.close(), speech?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  const pieces = async (format: string, piece: number) => {
    const res = await fetch(`${transcoder.url}/audio?format=${format}&piece=${piece}`, {
      method: "POST",
      body: await readFile(video.path),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return audioPieces(res.headers.get("X-Audio-Pieces"), new Uint8Array(await res.arrayBuffer()));
  };

  it("knows when flite spoke each word", () => {
    expect(video.words.map((w) => w.word)).toEqual(SPEECH_SENTENCES.flatMap(wordsOf));
    for (const w of video.words) expect(w.end).toBeGreaterThan(w.start);
    expect(video.words.at(-1)!.end).toBeLessThan(video.seconds);
  });

  it("cuts the audio into pieces that tile it, in silences, and pocketsphinx hears the text", async () => {
    const wav = await pieces("wav", 8);
    expect(wav[0]!.start).toBe(0);
    for (let i = 1; i < wav.length; i++) expect(wav[i]!.start).toBe(wav[i - 1]!.end);
    expect(wav.at(-1)!.end).toBeCloseTo(video.seconds, 1);
    for (const p of wav) expect(p.end - p.start).toBeLessThanOrEqual(8);
    // No cut falls inside a word.
    for (const p of wav.slice(1))
      expect(video.words.some((w) => w.start < p.start && p.start < w.end)).toBe(false);
    const heard: { word: string; start: number; end: number }[] = [];
    for (const p of wav) {
      const res = await fetch(`${speech.url}/transcribe?language=en`, {
        method: "POST",
        body: p.bytes,
      });
      const answer = (await res.json()) as { words: typeof heard };
      heard.push(
        ...answer.words.map((w) => ({ ...w, start: w.start + p.start, end: w.end + p.start })),
      );
    }
    const reference = video.words.map((w) => w.word);
    const wer = wordErrorRate(
      reference,
      heard.map((w) => w.word),
    );
    console.log(
      `speech-audio: pocketsphinx word error rate ${(wer * 100).toFixed(1)} % (${reference.length} words)`,
    );
    expect(wer).toBeLessThanOrEqual(0.15);
    // Each word it got right is placed within half a second of when flite said it.
    const matched = alignedWords(
      reference,
      heard.map((w) => w.word),
    );
    expect(matched.length).toBeGreaterThanOrEqual(reference.length * 0.85);
    for (const [r, h] of matched)
      expect(Math.abs(video.words[r]!.start - heard[h]!.start)).toBeLessThan(0.5);
  });

  it("gives MP3 pieces of the lengths it lists, and refuses what it cannot read", async () => {
    const mp3 = await pieces("mp3", 10);
    for (const [i, p] of mp3.entries()) {
      const file = join(dir, `piece-${i}.mp3`);
      await writeFile(file, p.bytes);
      const { stdout } = await run("ffprobe", [
        ...[
          "-v",
          "error",
          "-show_entries",
          "stream=codec_name,sample_rate,channels:format=duration",
        ],
        ...["-of", "json", file],
      ]);
      const probe = JSON.parse(stdout) as {
        streams: { codec_name: string; sample_rate: string; channels: number }[];
        format: { duration: string };
      };
      expect(probe.streams[0]).toMatchObject({
        codec_name: "mp3",
        sample_rate: "16000",
        channels: 1,
      });
      // MP3 frames are 72 ms at 16 kHz: the last is padded.
      expect(Math.abs(Number(probe.format.duration) - (p.end - p.start))).toBeLessThan(0.15);
    }
    const refused = await fetch(`${transcoder.url}/audio?format=ogg`, {
      method: "POST",
      body: "x",
    });
    expect([refused.status, await refused.text()]).toEqual([400, "format: wav or mp3"]);
    const junk = await fetch(`${transcoder.url}/audio?format=wav`, {
      method: "POST",
      body: "not mp4",
    });
    expect(junk.status).toBe(422);
    const french = await fetch(`${speech.url}/transcribe?language=fr`, {
      method: "POST",
      body: "x",
    });
    expect(french.status).toBe(400);
    expect(await french.text()).toMatch(/transcribes en only/);
  });
});
