// Automatic captions end to end (domain/captions/generate.ts), through the worker: a video whose
// audio is speech flite made from a known text (test/setup/speech-video.ts) is transcribed by
// the local speech engine (pocketsphinx, bound as SPEECH) on audio the transcoder program cuts
// (bound as TRANSCODER), in chunks of 8 s here (CAPTION_CHUNK_SECONDS: the 30 s of speech make
// several, so words across chunk boundaries are heard once). The track's words match the text
// (word error rate bounded below), each cue shows within a second of when its first word is
// said and keeps the reading rules, captions.ready is recorded, and a search for a spoken word
// finds the video and the time. Skipped, saying why, without flite, pocketsphinx or ffmpeg.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { alignedWords, wordErrorRate } from "../scripts/lib/word-errors.mjs";
import noAudioUrl from "./fixtures/h264-noaudio.mp4?inline";
import {
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  readHeaders,
  SETTLED_MS,
  type TestOrg,
  writeJson,
} from "./helpers";

/**
 * The word error rate the local engine must stay within on this text (45 words): pocketsphinx
 * heard it whole here (0.0 %, 2026-11-28) and at 2.2 % cut in 8 s pieces
 * (test/unit/speech-audio.test.ts); the bound leaves room for the engine's small variations
 * with the audio's cuts, never for a broken pipeline (a chunk lost, words shifted or doubled
 * make it far larger).
 */
const WER_BOUND = 0.15;

const speech = inject("speechVideo");
const missing = [...speech.missing, ...(env.SPEECH ? [] : ["the SPEECH binding"])];
if (missing.length)
  console.warn(
    `captions-auto: ${missing.join(", ")} missing: automatic captions are SKIPPED (apt-get install flite pocketsphinx pocketsphinx-en-us ffmpeg)`,
  );

const bytes = () => Uint8Array.from(atob(speech.mp4!), (c) => c.charCodeAt(0));
const noAudio = dataUrlBytes(noAudioUrl);
const words = () => speech.words!;

interface Cue {
  start: number;
  end: number;
  text: string;
}

/** Waits until the video's latest request for automatic captions has ended. */
async function captionsMade(org: TestOrg, contentKey: string) {
  let listed: { tracks: any[]; automatic: any } | undefined;
  await vi.waitFor(
    async () => {
      listed = (await writeJson(org, "GET", `/v2/content/captions/${contentKey}`)).body;
      expect(["ready", "failed"]).toContain(listed!.automatic?.status);
    },
    { timeout: SETTLED_MS, interval: 250 },
  );
  return listed!;
}

describe.skipIf(missing.length > 0)("automatic captions from the audio", () => {
  let org: TestOrg;
  let contentKey: string;
  let cues: Cue[];

  beforeAll(async () => {
    org = await createOrg();
    const hook = await writeJson(org, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/captions`,
      events: ["captions.ready", "captions.failed"],
    });
    expect(hook.res.status, JSON.stringify(hook.body)).toBe(200);
    contentKey = await publishVideo(org, bytes(), { title: "Evening sports report" });
  });

  it("are requested for a video, detect its language and make a track labelled auto-generated", async () => {
    const asked = await writeJson(org, "POST", `/v2/content/captions/${contentKey}/generate`, {});
    expect(asked.res.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({
      status: "pending",
      language: null,
      trigger: "request",
      engine: "local-pocketsphinx",
    });
    // One at a time.
    const again = await writeJson(org, "POST", `/v2/content/captions/${contentKey}/generate`, {});
    expect([again.res.status, again.body.message]).toEqual([
      409,
      `automatic captions of ${contentKey} are being made already`,
    ]);
    const listed = await captionsMade(org, contentKey);
    expect(listed.automatic).toMatchObject({ status: "ready", track: "en", reason: null });
    // 30 s of speech in chunks of 8 s, each with one segment of its neighbours: more audio heard.
    expect(listed.automatic.audioSeconds).toBeGreaterThan(speech.seconds!);
    expect(listed.tracks).toEqual([
      expect.objectContaining({
        language: "en",
        label: "English (auto-generated)",
        kind: "captions",
        automatic: true,
        engine: "local-pocketsphinx",
        version: 1,
      }),
    ]);
    const track = await writeJson(org, "GET", `/v2/content/captions/${contentKey}/en`);
    cues = track.body.cues;
  });

  it("hear the text: its words within the stated word error rate, each once", () => {
    const reference = words().map((w) => w.word);
    const heard = cues.flatMap((c) => c.text.split(/\s+/).filter(Boolean));
    const wer = wordErrorRate(reference, heard);
    console.log(
      `captions-auto: word error rate ${(wer * 100).toFixed(1)} % over ${reference.length} words (bound ${WER_BOUND * 100} %)`,
    );
    expect(wer).toBeLessThanOrEqual(WER_BOUND);
  });

  it("show each cue within a second of when its first word is said, cut for reading", () => {
    const reference = words().map((w) => w.word);
    let at = 0;
    const firstWords = cues.map((c) => {
      const index = at;
      at += c.text.split(/\s+/).filter(Boolean).length;
      return index;
    });
    const heard = cues.flatMap((c) => c.text.split(/\s+/).filter(Boolean));
    const matched = new Map(alignedWords(reference, heard).map(([r, h]) => [h, r]));
    let checked = 0;
    cues.forEach((cue, i) => {
      const lines = cue.text.split("\n");
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(42);
      expect(cue.end - cue.start).toBeGreaterThanOrEqual(1 - 1e-6);
      expect(cue.end - cue.start).toBeLessThanOrEqual(7 + 1e-6);
      if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(cues[i - 1]!.end - 1e-6);
      const said = matched.get(firstWords[i]!);
      if (said === undefined) return;
      expect(Math.abs(cue.start - words()[said]!.start), cue.text).toBeLessThan(1);
      checked++;
    });
    expect(checked).toBeGreaterThanOrEqual(cues.length - 1);
  });

  it("send captions.ready with the track", async () => {
    const event = await env.DB.prepare(
      "select payload from webhook_events where type = 'captions.ready' and payload like ?",
    )
      .bind(`%${contentKey}%`)
      .first<string>("payload");
    expect(JSON.parse(event!).data).toMatchObject({
      contentKey,
      language: "en",
      label: "English (auto-generated)",
      automatic: true,
      url: expect.stringMatching(/\/captions-en\.vtt$/),
      version: 1,
    });
  });

  it("are found by a spoken word, with the time it is said", async () => {
    const put = await writeJson(org, "PUT", "/v2/captions/settings", {
      autoCaptions: false,
      autoLanguage: null,
      transcriptSearch: true,
    });
    expect(put.res.status).toBe(200);
    const found = await callJson(
      `/prod/search_video_list?organization_key=${org.organizationKey}&searchString=goalkeeper`,
      { headers: readHeaders(org) },
    );
    expect(found.body.data.map((v: { content_key: string }) => v.content_key)).toEqual([
      contentKey,
    ]);
    const said = words().find((w) => w.word === "goalkeeper")!;
    const spoken = found.body.data[0].spoken;
    expect(spoken.language).toBe("en");
    expect(spoken.text).toContain("goalkeeper");
    // The cue holding the word starts within a second of when it is said.
    expect(Math.abs(spoken.start - said.start)).toBeLessThan(1);
  });

  it("never replace the publisher's own track, and take only the engine's languages", async () => {
    const french = await writeJson(org, "POST", `/v2/content/captions/${contentKey}/generate`, {
      language: "fr",
    });
    expect(french.res.status).toBe(400);
    expect(french.body.message).toBe(
      "language: the speech engine here (local-pocketsphinx) transcribes en only, not fr",
    );
    const own = await callJson(`/v2/content/captions/${contentKey}/en`, {
      method: "PUT",
      headers: { ...readHeaders(org), ...writeHeadersOf(org), "Content-Type": "text/vtt" },
      body: "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nWelcome\n",
    });
    expect(own.res.status).toBe(200);
    expect(own.body).toMatchObject({ automatic: false, label: "English", version: 2 });
    const replace = await writeJson(org, "POST", `/v2/content/captions/${contentKey}/generate`, {
      language: "en",
    });
    expect(replace.res.status).toBe(409);
    expect(replace.body.message).toMatch(/has the publisher's own en captions/);
  });

  it("are refused for a video without audio, and not asked for one at publishing", async () => {
    const silent = await publishVideo(org, noAudio);
    const asked = await writeJson(org, "POST", `/v2/content/captions/${silent}/generate`, {});
    expect([asked.res.status, asked.body.message]).toEqual([
      409,
      `no automatic captions: ${silent} has no audio`,
    ]);
  });

  it("are made for every video published once the organization asks for them", async () => {
    const other = await createOrg();
    const set = await writeJson(other, "PUT", "/v2/captions/settings", {
      autoCaptions: true,
      autoLanguage: "en",
      transcriptSearch: false,
    });
    expect(set.res.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.engine).toEqual({
      available: true,
      name: "local-pocketsphinx",
      languages: ["en"],
      reason: null,
    });
    // A silent video published meanwhile gets none, and no error.
    const silent = await publishVideo(other, noAudio);
    const key = await publishVideo(other, bytes(), { title: "Published with captions on" });
    const listed = await captionsMade(other, key);
    expect(listed.automatic).toMatchObject({ status: "ready", trigger: "auto", language: "en" });
    expect(listed.tracks.map((t: { label: string }) => t.label)).toEqual([
      "English (auto-generated)",
    ]);
    const none = await writeJson(other, "GET", `/v2/content/captions/${silent}`);
    expect(none.body).toEqual({ contentKey: silent, tracks: [], automatic: null });
  });

  it.skipIf(!env.TRANSCODER)(
    "are made for a source that is transcoded first, once it is published",
    async () => {
      const other = await createOrg();
      const set = await writeJson(other, "PUT", "/v2/captions/settings", {
        autoCaptions: true,
        autoLanguage: null,
        transcriptSearch: false,
      });
      expect(set.res.status, JSON.stringify(set.body)).toBe(200);
      const hevc = Uint8Array.from(atob(speech.hevcMp4!), (c) => c.charCodeAt(0));
      const key = await publishVideo(other, hevc, { title: "HEVC with captions on" });
      // Not while it is processing (no stream yet): once its top rung publishes it.
      const listed = await captionsMade(other, key);
      expect(listed.automatic).toMatchObject({
        status: "ready",
        trigger: "auto",
        language: null,
        track: "en",
      });
      const record = await writeJson(other, "GET", `/v2/content?contentKey=${key}`);
      expect(record.body.status).toBe("available");
      const track = await writeJson(other, "GET", `/v2/content/captions/${key}/en`);
      const heard = track.body.cues.flatMap((c: Cue) => c.text.split(/\s+/).filter(Boolean));
      const said = speech.hevcWords!.map((w) => w.word);
      expect(wordErrorRate(said, heard)).toBeLessThanOrEqual(WER_BOUND);
    },
  );
});

function writeHeadersOf(org: TestOrg) {
  return { "X-Service-Api-Key": org.apiKey, "X-Service-Api-Secret": org.apiSecret };
}
