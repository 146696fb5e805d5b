/**
 * "The words spoken in this audio, with their times": the one interface automatic captions go
 * through (domain/captions/generate.ts), with two engines behind it.
 *  - Production: Workers AI, `@cf/openai/whisper-large-v3-turbo` through the `AI` binding
 *    (wrangler `[ai]`). Its input is one piece of audio, base64 (the transcoder cuts a video's
 *    audio into pieces of at most 30 s, Whisper's own window, as MP3: about 120 KB each); its
 *    answer has `transcription_info.language` and `segments[].words[]` with start and end
 *    seconds (developers.cloudflare.com/workers-ai/models/whisper-large-v3-turbo).
 *  - Local development and tests: an offline engine (scripts/lib/speech-service.mjs: Debian's
 *    pocketsphinx with its US-English model), reached as the SPEECH service binding (tests) or at
 *    SPEECH_URL (npm run dev): POST /transcribe?language= with a 16 kHz mono WAV piece, answering
 *    `{language, words: [{word, start, end}]}`.
 */

import type { SpeechModelBinding } from "../shared/bindings";
import { LANGUAGE_CODE } from "../shared/captions";
import { base64 } from "../shared/crypto";
import type { TimedWord } from "./captions/reading";

export type { TimedWord };

/** What an engine heard in one piece of audio: times in seconds from the piece's start. */
export interface Transcript {
  /** The spoken language (ISO 639-1) as the engine detected or was told; null when unknown. */
  language: string | null;
  words: TimedWord[];
}

/** The audio an engine takes: MP3 (Workers AI) or 16 kHz mono 16-bit WAV (the local engine). */
export type SpeechAudio = "mp3" | "wav";

export interface SpeechEngine {
  /** What transcribes (logged with each job, stored with each track made). */
  readonly name: string;
  readonly audio: SpeechAudio;
  /** The languages it transcribes; null: any Whisper knows (it detects the language itself). */
  readonly languages: readonly string[] | null;
  /** The words of one piece of audio; `language` null: detect it. */
  transcribe(audio: Uint8Array, language: string | null): Promise<Transcript>;
}

/** The engine refused the audio for good (a 4xx, an answer it will give again): not retried. */
export class SpeechRefused extends Error {}

export const WHISPER_MODEL = "@cf/openai/whisper-large-v3-turbo";
/** Workers AI's price of the model (developers.cloudflare.com, Unit Pricing), US$ per minute of audio. */
export const WHISPER_USD_PER_MINUTE = 0.00051;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const languageOf = (v: unknown) =>
  typeof v === "string" && LANGUAGE_CODE.test(v.toLowerCase()) ? v.toLowerCase() : null;

/** Words spread evenly over a span of text the model timed as a whole (a segment without words). */
function spread(text: string, start: number, end: number): TimedWord[] {
  const words = text.split(/\s+/).filter(Boolean);
  const step = words.length ? (end - start) / words.length : 0;
  return words.map((word, i) => ({ word, start: start + i * step, end: start + (i + 1) * step }));
}

/**
 * Whisper's answer (the model's documented output) as a transcript: the words of its segments,
 * or, where a segment has none, its text spread over its times; the language it names.
 */
export function whisperTranscript(answer: unknown, askedLanguage: string | null): Transcript {
  if (!isRecord(answer) || typeof answer.text !== "string")
    throw new Error("workers-ai: the answer has no text (not the model's output)");
  const info = isRecord(answer.transcription_info) ? answer.transcription_info : {};
  const language = askedLanguage ?? languageOf(info.language);
  const segments = Array.isArray(answer.segments) ? answer.segments.filter(isRecord) : [];
  const words: TimedWord[] = [];
  for (const segment of segments) {
    const timed = Array.isArray(segment.words)
      ? segment.words.filter(
          (w): w is { word: string; start: number; end: number } =>
            isRecord(w) && typeof w.word === "string" && finite(w.start) && finite(w.end),
        )
      : [];
    if (timed.length)
      words.push(...timed.map((w) => ({ word: w.word.trim(), start: w.start, end: w.end })));
    else if (typeof segment.text === "string" && finite(segment.start) && finite(segment.end))
      words.push(...spread(segment.text, segment.start, segment.end));
  }
  if (segments.length === 0 && answer.text.trim()) {
    const duration = finite(info.duration) ? info.duration : 0;
    words.push(...spread(answer.text, 0, duration));
  }
  return { language, words: words.filter((w) => w.word !== "") };
}

/** Production: Whisper (large v3 turbo) on Workers AI. */
export function workersAiSpeech(ai: SpeechModelBinding): SpeechEngine {
  return {
    name: `workers-ai ${WHISPER_MODEL}`,
    audio: "mp3",
    languages: null,
    async transcribe(audio, language) {
      const input: Record<string, unknown> = { audio: base64(audio), task: "transcribe" };
      if (language) input.language = language;
      return whisperTranscript(await ai.run(WHISPER_MODEL, input), language);
    },
  };
}

type Fetch = (request: Request) => Promise<Response>;

/** The local engine's languages: pocketsphinx's US-English model. */
export const LOCAL_SPEECH_LANGUAGES = ["en"] as const;

/** Local: the offline engine over HTTP (POST /transcribe?language= with a WAV piece). */
export function httpSpeech(name: string, fetcher: Fetch): SpeechEngine {
  return {
    name,
    audio: "wav",
    languages: LOCAL_SPEECH_LANGUAGES,
    async transcribe(audio, language) {
      const query = language ? `?language=${encodeURIComponent(language)}` : "";
      const response = await fetcher(
        new Request(`http://speech.local/transcribe${query}`, {
          method: "POST",
          body: audio,
          headers: { "Content-Type": "audio/wav" },
        }),
      );
      if (!response.ok) {
        const message = `${name}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`;
        if (response.status >= 400 && response.status < 500) throw new SpeechRefused(message);
        throw new Error(message);
      }
      const answer: unknown = await response.json();
      if (!isRecord(answer) || !Array.isArray(answer.words))
        throw new Error(`${name}: the answer has no words`);
      return {
        language: language ?? languageOf(answer.language),
        words: answer.words.filter(
          (w): w is TimedWord =>
            isRecord(w) && typeof w.word === "string" && finite(w.start) && finite(w.end),
        ),
      };
    },
  };
}

/** What a deployment may have (env.ts). */
export interface SpeechBindings {
  /** Production: Workers AI (wrangler `[ai] binding = "AI"`). */
  AI?: SpeechModelBinding;
  /** Tests: the local engine as a service binding. */
  SPEECH?: { fetch(request: Request): Promise<Response> };
  /** npm run dev: where the local engine listens. */
  SPEECH_URL?: string;
}

/**
 * The speech engine this deployment has, or null (no automatic captions). The local ones first,
 * as for the transcoder: a developer's `npm run dev` uses the offline engine even where the
 * `[ai]` binding is configured.
 */
export function speechEngineOf(env: SpeechBindings): SpeechEngine | null {
  const binding = env.SPEECH;
  if (binding) return httpSpeech("local-pocketsphinx", (request) => binding.fetch(request));
  const base = env.SPEECH_URL;
  if (base)
    return httpSpeech("local-pocketsphinx", (request) => {
      const url = new URL(request.url);
      return fetch(new Request(`${base.replace(/\/$/, "")}${url.pathname}${url.search}`, request));
    });
  if (env.AI) return workersAiSpeech(env.AI);
  return null;
}
