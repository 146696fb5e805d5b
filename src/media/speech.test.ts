// The speech engines' adapters against their documented shapes: Workers AI's Whisper (its
// input and output as Cloudflare documents them; workers-types' Ai_Cf_Openai_Whisper_Large_V3_Turbo_*
// types, so a change of the documented shapes fails the type check) and the local engine's HTTP.
import { describe, expect, it } from "vitest";
import { fromBase64 } from "../shared/crypto";
import {
  httpSpeech,
  SpeechRefused,
  speechEngineOf,
  WHISPER_MODEL,
  whisperTranscript,
  workersAiSpeech,
} from "./speech";

// The model the adapter names is one Workers AI has.
const model: keyof AiModels = WHISPER_MODEL;

/** An answer as the model documents it: segments with words, the detected language, a VTT. */
const DOCUMENTED_ANSWER: Ai_Cf_Openai_Whisper_Large_V3_Turbo_Output = {
  transcription_info: {
    language: "en",
    language_probability: 0.98,
    duration: 6.2,
    duration_after_vad: 6.2,
  },
  text: " Welcome to the evening sports report. The home team won.",
  word_count: 10,
  segments: [
    {
      start: 0.12,
      end: 2.7,
      text: " Welcome to the evening sports report.",
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 1.1,
      no_speech_prob: 0.01,
      words: [
        { word: " Welcome", start: 0.12, end: 0.7 },
        { word: " to", start: 0.7, end: 0.95 },
        { word: " the", start: 0.95, end: 1.03 },
        { word: " evening", start: 1.03, end: 1.48 },
        { word: " sports", start: 1.48, end: 2.03 },
        { word: " report.", start: 2.03, end: 2.7 },
      ],
    },
    // A segment the model timed without words: its text is spread over its times.
    { start: 3.9, end: 5.1, text: " The home team won." },
  ],
  vtt: "WEBVTT\n\n00:00.120 --> 00:02.700\nWelcome to the evening sports report.\n",
};

describe("Workers AI (Whisper large v3 turbo)", () => {
  it("sends the audio as the documented input and reads the words of the documented output", async () => {
    const audio = new Uint8Array([0xff, 0xfb, 0x90, 0x64, 0, 1, 2, 3]);
    const calls: { model: string; input: Ai_Cf_Openai_Whisper_Large_V3_Turbo_Input }[] = [];
    const engine = workersAiSpeech({
      async run(name, input) {
        calls.push({
          model: name,
          input: input as unknown as Ai_Cf_Openai_Whisper_Large_V3_Turbo_Input,
        });
        return DOCUMENTED_ANSWER;
      },
    });
    expect(engine.audio).toBe("mp3");
    expect(engine.languages).toBeNull();
    const detected = await engine.transcribe(audio, null);
    const told = await engine.transcribe(audio, "en");
    expect(calls.map((c) => c.model)).toEqual([model, model]);
    // The audio is the base64 string the model takes; a language only when one is given.
    expect(calls[0]!.input).toEqual({ audio: expect.any(String), task: "transcribe" });
    expect(fromBase64(calls[0]!.input.audio as string)).toEqual(audio);
    expect(calls[1]!.input.language).toBe("en");
    expect(detected.language).toBe("en");
    expect(told).toEqual(detected);
    expect(detected.words.slice(0, 2)).toEqual([
      { word: "Welcome", start: 0.12, end: 0.7 },
      { word: "to", start: 0.7, end: 0.95 },
    ]);
    expect(detected.words.slice(6).map((w) => w.word)).toEqual(["The", "home", "team", "won."]);
    expect(detected.words[6]!.start).toBeCloseTo(3.9);
    expect(detected.words[9]!.end).toBeCloseTo(5.1);
  });

  it("reads an answer with text only, and refuses one that is not the model's", () => {
    expect(
      whisperTranscript({ text: "Goal now", transcription_info: { duration: 2 } }, null),
    ).toEqual({
      language: null,
      words: [
        { word: "Goal", start: 0, end: 1 },
        { word: "now", start: 1, end: 2 },
      ],
    });
    expect(whisperTranscript({ text: "" }, "fr")).toEqual({ language: "fr", words: [] });
    expect(() => whisperTranscript({ result: "x" }, null)).toThrow(/not the model's output/);
  });

  it("passes a failing run on for the queue to retry", async () => {
    const engine = workersAiSpeech({
      run: () => Promise.reject(new Error("3040: Capacity temporarily exceeded")),
    });
    await expect(engine.transcribe(new Uint8Array(4), null)).rejects.toThrow(/Capacity/);
  });
});

describe("the local engine over HTTP", () => {
  it("posts the WAV piece and reads its words; a 4xx is a refusal, a 5xx a passing failure", async () => {
    const seen: string[] = [];
    const engine = httpSpeech("local", async (request) => {
      seen.push(`${request.method} ${request.url} ${(await request.arrayBuffer()).byteLength}`);
      if (request.url.includes("language=xx"))
        return new Response("no model for xx", { status: 400 });
      if (request.url.includes("language=en"))
        return Response.json({
          language: "en",
          words: [{ word: "goal", start: 1, end: 1.4 }, { word: 3 }],
        });
      return new Response("busy", { status: 503 });
    });
    expect(await engine.transcribe(new Uint8Array(44), "en")).toEqual({
      language: "en",
      words: [{ word: "goal", start: 1, end: 1.4 }],
    });
    expect(seen).toEqual(["POST http://speech.local/transcribe?language=en 44"]);
    await expect(engine.transcribe(new Uint8Array(1), "xx")).rejects.toBeInstanceOf(SpeechRefused);
    await expect(engine.transcribe(new Uint8Array(1), null)).rejects.not.toBeInstanceOf(
      SpeechRefused,
    );
  });

  it("is chosen before Workers AI; none without either", () => {
    const ai = { run: async () => DOCUMENTED_ANSWER };
    expect(speechEngineOf({ AI: ai })?.name).toBe(`workers-ai ${WHISPER_MODEL}`);
    expect(speechEngineOf({ AI: ai, SPEECH_URL: "http://127.0.0.1:9" })?.name).toBe(
      "local-pocketsphinx",
    );
    expect(speechEngineOf({})).toBeNull();
  });
});
