// Automatic captions (docs/captions.md): a video's audio transcribed by a speech engine
// (media/speech.ts: Workers AI's Whisper in production, pocketsphinx locally) into a caption
// track labelled "… (auto-generated)".
//
// 1. A request (POST .../generate, or the organization's setting when a video is published)
//    records a job and queues one message per chunk of the audio: a run of the source's segments
//    of about CAPTION_CHUNK_SECONDS, on the renditions queue (its consumer has the transcoder).
// 2. A chunk's job writes the chunk's audio as an MP4 (the source's AAC, not decoded here: the
//    DASH audio init segment and its segments, with one segment more on each side), and the
//    transcoder (containers/transcoder/audio.mjs) decodes it and cuts it into pieces of at most
//    PIECE_SECONDS, in quiet moments, that tile it. Each piece goes to the engine; its words'
//    times are moved by where the piece and the chunk start, so cue times are the video's.
//    A word belongs to the chunk its middle falls in: the one extra segment on each side means
//    a word across a chunk's boundary is heard whole by both and kept once. The chunk's words
//    are stored in R2.
// 3. The job that finds every chunk stored assembles: the words cut into cues for reading
//    (media/captions/reading.ts), saved as the track (./tracks.ts) and indexed for search; the
//    webhook captions.ready (or captions.failed) is sent.
import {
  type CaptionJobRow,
  captionSettingsOf,
  claimCaptionAssembly,
  findCaptionJob,
  findTrack,
  finishCaptionJob,
  insertCaptionJob,
} from "../../db/captions";
import { findContentByKeyAnyOrg } from "../../db/content";
import type { Content } from "../../db/schema";
import { MediaProbeError } from "../../media/bmff/reader";
import { concat } from "../../media/bmff/writer";
import { cuesFromWords, type TimedWord } from "../../media/captions/reading";
import { initSegment } from "../../media/packaging/fmp4";
import { packageSegment } from "../../media/packaging/packager";
import type { HlsIndex } from "../../media/packaging/segments";
import { planChunks } from "../../media/renditions/chunk";
import { type SpeechEngine, SpeechRefused } from "../../media/speech";
import { TranscodeRefused, type Transcoder } from "../../media/transcoder";
import type { CaptionJob } from "../../shared/bindings";
import { automaticLabel } from "../../shared/captions";
import { conflict, invalid } from "../../shared/errors";
import { captionJobKeys, hlsKeys } from "../../storage/layout";
import { deleteObjectsUnder, r2RangeReader } from "../../storage/objects";
import type { Deps } from "../deps";
import { ensureIndex } from "../streaming/indexes";
import { emitWebhookEvent } from "../webhooks/emit";
import { type CaptionJobView, jobView, storeCaptionTrack } from "./tracks";

export { speechEngineOf } from "../../media/speech";
export type { CaptionJob };

/**
 * The longest piece of audio an engine is given: Whisper's own window (its model reads 30 s at
 * a time; a longer input is cut by the runtime anyway), and about 120 KB of MP3 for Workers AI.
 */
export const PIECE_SECONDS = 30;

/** Why this deployment cannot make captions from audio, or null when it can. */
export function captionEngineMissing(deps: Pick<Deps, "speech" | "renditionJobs">): string | null {
  if (!deps.speech)
    return "this deployment has no speech engine (Workers AI's AI binding, or the local engine: docs/captions.md)";
  if (!deps.renditionJobs)
    return "this deployment has no transcoder to extract the audio (docs/renditions.md)";
  return null;
}

/** A language the engine can be asked for (its list; Whisper's: any it detects). */
export function checkEngineLanguage(engine: SpeechEngine, language: string | null): void {
  if (language && engine.languages && !engine.languages.includes(language))
    throw invalid(
      `language: the speech engine here (${engine.name}) transcribes ${engine.languages.join(", ")} only, not ${language}`,
    );
}

/**
 * Asks for automatic captions of a video (its language, or null: detected). Refused (409) when
 * the deployment cannot, the video has no audio or is not published, a request is under way, or
 * the language has the publisher's own track (automatic captions never replace it).
 */
export async function requestCaptions(
  deps: Deps,
  content: Content,
  language: string | null,
  trigger: "request" | "auto",
): Promise<CaptionJobView> {
  const missing = captionEngineMissing(deps);
  if (missing) throw conflict(`no automatic captions: ${missing}`);
  const engine = deps.speech!;
  checkEngineLanguage(engine, language);
  if (content.status !== "available" && content.status !== "processing")
    throw conflict(
      `contentKey: ${content.contentKey} is ${content.status}: automatic captions are made once it is published`,
    );
  if (language) {
    const track = await findTrack(deps.db, content.id, language);
    if (track && !track.automatic)
      throw conflict(
        `${content.contentKey} has the publisher's own ${language} captions: automatic ones would replace them (delete them first)`,
      );
  }
  const index = await ensureIndex(deps, content);
  if ("unstreamable" in index)
    throw conflict(`no automatic captions: the video cannot be read (${index.unstreamable})`);
  if (!index.audio) throw conflict(`no automatic captions: ${content.contentKey} has no audio`);
  const chunkSeconds = deps.config.captionChunkSeconds;
  const chunks = planChunks(index, chunkSeconds).length;
  const now = deps.now.toISOString();
  const id = await insertCaptionJob(
    deps.db,
    { contentId: content.id, language, chunks, chunkSeconds, engine: engine.name, trigger },
    now,
  );
  if (id === null)
    throw conflict(`automatic captions of ${content.contentKey} are being made already`);
  const messages: CaptionJob[] = Array.from({ length: chunks }, (_, chunk) => ({
    captions: true,
    jobId: id,
    contentId: content.id,
    contentKey: content.contentKey,
    chunk,
  }));
  try {
    for (let i = 0; i < messages.length; i += 100)
      await deps.renditionJobs!.sendBatch(
        messages.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })),
      );
  } catch (err) {
    await finishCaptionJob(deps.db, id, { status: "failed", reason: "not queued" }, now);
    throw err;
  }
  return jobView((await findCaptionJob(deps.db, id))!);
}

/** Presentation time (seconds) where segment `n`'s audio starts: its first sample, less the edit. */
function audioStart(index: HlsIndex, n: number): number {
  const audio = index.audio!;
  const segment = index.segments[n]!;
  return Math.max(0, (segment.audio!.decodeTime - audio.presentationStart) / audio.timescale);
}

/** Where segment `n`'s video starts (the chunks' boundaries): its keyframe's presentation time. */
function segmentStart(index: HlsIndex, n: number): number {
  if (n >= index.segments.length) return Number.POSITIVE_INFINITY;
  const video = index.video;
  return (index.segments[n]!.video.decodeTime - video.presentationStart) / video.timescale;
}

/** The source's audio of segments [first, last] as one MP4: the DASH init segment, then each segment. */
async function sourceAudio(
  deps: Deps,
  content: Content,
  index: HlsIndex,
  first: number,
  last: number,
): Promise<Uint8Array> {
  const keys = hlsKeys(content.contentKey, content.id);
  const table = r2RangeReader(deps.bucket, keys.samples, Number.MAX_SAFE_INTEGER);
  const media = r2RangeReader(deps.bucket, content.mediaKey, Number.MAX_SAFE_INTEGER);
  const parts = [initSegment([index.audio!])];
  for (let n = first; n <= last; n++) {
    // A segment whose audio is empty (the audio ended before the video) adds nothing.
    if (!index.segments[n]!.audio?.count) continue;
    parts.push(await packageSegment(index, n, table, media, "audio"));
  }
  return concat(parts);
}

/** What one chunk heard, stored until the track is assembled. */
interface ChunkWords {
  words: TimedWord[];
  /** Words heard in each language the engine named. */
  languages: Record<string, number>;
  /** Seconds of audio the engine was given. */
  seconds: number;
}

export type CaptionJobOutcome = "stored" | "ready" | "failed" | "gone" | "done";

/** A refusal that will not change on a retry: the job fails at once. */
class CaptionsNotMade extends Error {}

/**
 * One chunk: its audio extracted, transcribed piece by piece, its words stored; then the track
 * assembled if it was the last. A refusal fails the job; anything else throws, and the queue
 * retries the chunk (`lastAttempt`: fail instead).
 */
export async function runCaptionJob(
  deps: Deps,
  transcoder: Transcoder,
  engine: SpeechEngine,
  job: CaptionJob,
  lastAttempt = false,
): Promise<CaptionJobOutcome> {
  const row = await findCaptionJob(deps.db, job.jobId);
  if (!row || row.status !== "pending" || row.contentId !== job.contentId) return "done";
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  if (
    !content ||
    content.id !== job.contentId ||
    (content.status !== "available" && content.status !== "processing")
  )
    return "gone";
  try {
    const heard = await transcribeChunk(deps, transcoder, engine, content, row, job.chunk);
    const keys = captionJobKeys(content.contentKey, content.id, row.id);
    await deps.bucket.put(keys.chunk(job.chunk), JSON.stringify(heard), {
      httpMetadata: { contentType: "application/json" },
    });
    const stored = await deps.bucket.list({ prefix: keys.prefix });
    if (stored.objects.length < row.chunks || !(await claimCaptionAssembly(deps.db, row.id)))
      return "stored";
    return await assemble(deps, engine, content, row);
  } catch (err) {
    const permanent =
      err instanceof CaptionsNotMade ||
      err instanceof TranscodeRefused ||
      err instanceof SpeechRefused ||
      err instanceof MediaProbeError;
    if (!permanent && !lastAttempt) throw err;
    const reason = String(err instanceof Error ? err.message : err).slice(0, 300);
    await failJob(deps, content, row, `chunk ${job.chunk}: ${reason}`);
    return "failed";
  }
}

async function transcribeChunk(
  deps: Deps,
  transcoder: Transcoder,
  engine: SpeechEngine,
  content: Content,
  row: CaptionJobRow,
  chunk: number,
): Promise<ChunkWords> {
  if (!transcoder.extractAudio)
    throw new CaptionsNotMade(`the transcoder (${transcoder.name}) does not extract audio`);
  const index = await ensureIndex(deps, content);
  if ("unstreamable" in index || !index.audio)
    throw new CaptionsNotMade("the video's audio cannot be read");
  const spans = planChunks(index, row.chunkSeconds);
  const span = spans[chunk];
  if (!span || spans.length !== row.chunks)
    throw new CaptionsNotMade(`chunk ${chunk} is not one of the ${row.chunks} planned`);
  // One segment more on each side: a word across a boundary is heard whole, kept by its middle.
  const first = Math.max(0, span.first - 1);
  const last = Math.min(index.segments.length - 1, span.last + 1);
  const keepFrom = span.first === 0 ? Number.NEGATIVE_INFINITY : segmentStart(index, span.first);
  const keepTo = segmentStart(index, span.last + 1);
  const start = audioStart(index, first);
  const pieces = await transcoder.extractAudio({
    audio: await sourceAudio(deps, content, index, first, last),
    format: engine.audio,
    pieceSeconds: PIECE_SECONDS,
  });
  const heard: ChunkWords = { words: [], languages: {}, seconds: 0 };
  for (const piece of pieces) {
    const transcript = await engine.transcribe(piece.bytes, row.language);
    heard.seconds += piece.end - piece.start;
    let kept = 0;
    for (const w of transcript.words) {
      const at = start + piece.start;
      const word = { word: w.word, start: at + w.start, end: at + w.end };
      const middle = (word.start + word.end) / 2;
      if (middle < keepFrom || middle >= keepTo) continue;
      heard.words.push(word);
      kept++;
    }
    if (transcript.language && kept)
      heard.languages[transcript.language] = (heard.languages[transcript.language] ?? 0) + kept;
  }
  return heard;
}

/** The chunks' words as the track: cut for reading, saved, indexed, announced. */
async function assemble(
  deps: Deps,
  engine: SpeechEngine,
  content: Content,
  row: CaptionJobRow,
): Promise<CaptionJobOutcome> {
  const keys = captionJobKeys(content.contentKey, content.id, row.id);
  const words: TimedWord[] = [];
  const languages = new Map<string, number>();
  let seconds = 0;
  for (let k = 0; k < row.chunks; k++) {
    const object = await deps.bucket.get(keys.chunk(k));
    if (!object) throw new Error(`chunk ${k} of caption job ${row.id} is missing`);
    const heard = await object.json<ChunkWords>();
    words.push(...heard.words);
    seconds += heard.seconds;
    for (const [language, n] of Object.entries(heard.languages))
      languages.set(language, (languages.get(language) ?? 0) + n);
  }
  const language =
    row.language ??
    [...languages.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ??
    engine.languages?.[0] ??
    null;
  if (words.length === 0 || !language) {
    await failJob(deps, content, row, "no speech was heard in the audio", seconds);
    return "failed";
  }
  const existing = await findTrack(deps.db, content.id, language);
  if (existing && !existing.automatic) {
    await failJob(
      deps,
      content,
      row,
      `${language} has the publisher's own captions, which automatic ones do not replace`,
      seconds,
    );
    return "failed";
  }
  const { track } = await storeCaptionTrack(
    deps,
    content,
    language,
    cuesFromWords(words),
    { label: automaticLabel(language) },
    { automatic: true, engine: engine.name },
  );
  await finishCaptionJob(
    deps.db,
    row.id,
    { status: "ready", trackLanguage: language, audioSeconds: seconds },
    deps.now.toISOString(),
  );
  await deleteObjectsUnder(deps.bucket, keys.prefix);
  await emitWebhookEvent(deps, content, "captions.ready", {
    contentKey: content.contentKey,
    ...track,
    requestedAt: row.requestedAt,
    audioSeconds: seconds,
  });
  return "ready";
}

/** A chunk no consumer here can run (no transcoder or engine): its job fails, saying why. */
export async function captionJobUnrunnable(
  deps: Deps,
  job: CaptionJob,
  reason: string,
): Promise<void> {
  const row = await findCaptionJob(deps.db, job.jobId);
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  if (row && content && content.id === row.contentId)
    await failJob(deps, content, row, `chunk ${job.chunk}: ${reason}`);
}

async function failJob(
  deps: Deps,
  content: Content,
  row: CaptionJobRow,
  reason: string,
  audioSeconds?: number,
): Promise<void> {
  const ended = await finishCaptionJob(
    deps.db,
    row.id,
    { status: "failed", reason, audioSeconds },
    deps.now.toISOString(),
  );
  await deleteObjectsUnder(
    deps.bucket,
    captionJobKeys(content.contentKey, content.id, row.id).prefix,
  );
  if (ended)
    await emitWebhookEvent(deps, content, "captions.failed", {
      contentKey: content.contentKey,
      language: row.language,
      reason,
      requestedAt: row.requestedAt,
    });
}

/**
 * When a video is published (E2, a transcoded source's top rung, a live recording): automatic
 * captions if its organization asks for them (its setting), in its language or detected.
 * Nothing when the deployment cannot or the video has no sound. Never throws: the video is
 * published either way, and a failure is logged.
 */
export async function autoCaptions(deps: Deps, content: Content): Promise<CaptionJobView | null> {
  try {
    if (captionEngineMissing(deps)) return null;
    const settings = await captionSettingsOf(deps.db, content.organizationId);
    if (!settings.autoCaptions) return null;
    // A video without sound gets none (asked for them, it would be a 409).
    const index = await ensureIndex(deps, content);
    if ("unstreamable" in index || !index.audio) return null;
    return await requestCaptions(deps, content, settings.autoLanguage, "auto");
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "automatic captions not requested",
        content_key: content.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
    return null;
  }
}
