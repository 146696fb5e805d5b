// The caption tracks the service keeps (docs/captions.md): uploaded WebVTT or SubRip files
// (converted to WebVTT), edits saved as new versions, and the tracks made from the audio
// (./generate.ts). One track per language and video; its text in R2 under its version
// (storage/layout.ts captionKey: each version kept until the track goes), its settings in D1,
// and the list on the video's row for its readers (db/captions.ts). Every change reaches the
// stream (HLS, DASH), the embed, the records and feed files (catalogChanged) and the spoken-word
// index (its passages replaced).
import {
  type CaptionJobRow,
  type CaptionTrack,
  deleteTrack,
  findTrack,
  latestCaptionJob,
  saveTrack,
  type TrackSettings,
  tracksOf,
  updateTrackSettings,
} from "../../db/captions";
import type { ContentScope } from "../../db/catalog";
import type { Content } from "../../db/schema";
import { replaceTranscript } from "../../db/transcripts";
import {
  CaptionFileError,
  type CaptionFormat,
  type Cue,
  parseCaptionFile,
  writeWebVtt,
} from "../../media/captions/cue-file";
import { passagesOf } from "../../media/captions/transcript";
import {
  automaticLabel,
  CAPTION_LANGUAGES_MAX,
  type CaptionKind,
  languageName,
} from "../../shared/captions";
import { conflict, invalid, notFound } from "../../shared/errors";
import { parseStreamFile } from "../../shared/stream-files";
import { captionKey, captionsPrefix, captionTrackPrefix } from "../../storage/layout";
import { deleteObjectsUnder } from "../../storage/objects";
import { keptCaptionUrl } from "../catalog/records";
import { catalogChanged } from "../catalog-changed";
import { loadContentOr404 } from "../content/objects";
import type { Deps, Origins } from "../deps";

/** A track as the API shows it. */
export interface CaptionTrackView {
  language: string;
  label: string;
  kind: CaptionKind;
  default: boolean;
  automatic: boolean;
  /** The engine that made it (automatic tracks). */
  engine: string | null;
  version: number;
  cueCount: number;
  /** The WebVTT file on the service's origin (the same URL whatever the version). */
  url: string;
  createdAt: string;
  updatedAt: string;
}

/** A request for automatic captions as the API shows it. */
export interface CaptionJobView {
  status: CaptionJobRow["status"];
  language: string | null;
  trigger: CaptionJobRow["trigger"];
  engine: string;
  reason: string | null;
  track: string | null;
  audioSeconds: number | null;
  requestedAt: string;
  finishedAt: string | null;
}

export const jobView = (job: CaptionJobRow): CaptionJobView => ({
  status: job.status,
  language: job.language,
  trigger: job.trigger,
  engine: job.engine,
  reason: job.reason,
  track: job.trackLanguage,
  audioSeconds: job.audioSeconds,
  requestedAt: job.requestedAt,
  finishedAt: job.finishedAt,
});

export function trackView(
  content: Pick<Content, "contentKey" | "id">,
  t: CaptionTrack,
  origins: Pick<Origins, "baseUrl">,
): CaptionTrackView {
  return {
    language: t.language,
    label: t.label,
    kind: t.kind,
    default: t.isDefault,
    automatic: t.automatic,
    engine: t.engine,
    version: t.version,
    cueCount: t.cues,
    url: keptCaptionUrl(content, t.language, origins),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** A content that may have captions: not rejected, not expired. */
async function captionedContent(deps: Pick<Deps, "db">, scope: ContentScope, contentKey: string) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  if (content.status === "rejected" || content.status === "expired")
    throw conflict(`contentKey: ${contentKey} is ${content.status}: it has no captions`);
  return content;
}

async function trackOr404(deps: Pick<Deps, "db">, content: Content, language: string) {
  const track = await findTrack(deps.db, content.id, language);
  if (!track) throw notFound(`${content.contentKey} has no captions in ${language}`);
  return track;
}

/** GET: the video's tracks, by language, and its latest request for automatic captions. */
export async function listCaptionTracks(deps: Deps, scope: ContentScope, contentKey: string) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  const [tracks, job] = await Promise.all([
    tracksOf(deps.db, content.id),
    latestCaptionJob(deps.db, content.id),
  ]);
  return {
    contentKey,
    tracks: tracks.map((t) => trackView(content, t, deps.origins)),
    automatic: job ? jobView(job) : null,
  };
}

/** What a track's settings become: those given, else the track's own, else the defaults. */
function settingsFor(
  language: string,
  given: Partial<TrackSettings>,
  current: CaptionTrack | null,
  automatic: boolean,
): TrackSettings {
  // An automatic track's label says so; once the publisher edits it, it is their own.
  const ownLabel =
    current && current.label !== automaticLabel(language) ? current.label : languageName(language);
  return {
    label: given.label ?? (automatic ? automaticLabel(language) : ownLabel),
    kind: given.kind ?? current?.kind ?? (automatic ? "captions" : "subtitles"),
    isDefault: given.isDefault ?? current?.isDefault ?? false,
  };
}

/** Languages a video has: its publisher's subtitle URLs and the tracks the service keeps. */
export function languageCount(content: Pick<Content, "subtitles" | "captions">): number {
  let count = content.captions.length;
  for (const entry of content.subtitles) count += Object.keys(entry).length;
  return count;
}

/**
 * E4's `subtitles` as the publisher's own: the service's caption URLs that E3 shows beside them
 * (sent back, retrieve-modify-send) are left out, as the service's thumbnail URL is; refused past
 * the languages a video may have, the service's tracks counted.
 */
export function publisherSubtitles(
  content: Pick<Content, "contentKey" | "captions">,
  subtitles: readonly Record<string, string>[],
  origins: Pick<Origins, "baseUrl">,
): Record<string, string>[] {
  const streams = `${origins.baseUrl}/hls/${content.contentKey}/`;
  const isKept = (url: string) =>
    url.startsWith(streams) &&
    parseStreamFile(url.slice(url.lastIndexOf("/") + 1))?.kind === "caption";
  const own = subtitles
    .map((entry) => Object.fromEntries(Object.entries(entry).filter(([, url]) => !isKept(url))))
    .filter((entry) => Object.keys(entry).length > 0);
  const count = languageCount({ subtitles: own, captions: content.captions });
  if (count > CAPTION_LANGUAGES_MAX)
    throw invalid(
      `subtitles: at most ${CAPTION_LANGUAGES_MAX} subtitle languages per video, its caption tracks counted (this body and its ${content.captions.length} track(s) make ${count})`,
    );
  return own;
}

/**
 * Saves cues as the next version of the video's track in `language` (a new track when it has
 * none): the text in R2 first, then the row (a save that lost a race is refused, nothing
 * half-done is served), then the spoken-word index and everything that shows the video.
 */
export async function storeCaptionTrack(
  deps: Deps,
  content: Content,
  language: string,
  cues: readonly Cue[],
  given: Partial<TrackSettings>,
  made: { automatic: boolean; engine: string | null },
): Promise<{ created: boolean; track: CaptionTrackView }> {
  const current = await findTrack(deps.db, content.id, language);
  if (!current && languageCount(content) >= CAPTION_LANGUAGES_MAX)
    throw invalid(
      `at most ${CAPTION_LANGUAGES_MAX} subtitle languages per video, its subtitle URLs and its caption tracks together: ${content.contentKey} has ${languageCount(content)}`,
    );
  const version = (current?.version ?? 0) + 1;
  const text = writeWebVtt(cues);
  const bytes = new TextEncoder().encode(text);
  await deps.bucket.put(captionKey(content.contentKey, content.id, language, version), bytes, {
    httpMetadata: { contentType: "text/vtt; charset=utf-8" },
  });
  const now = deps.now.toISOString();
  const saved = await saveTrack(
    deps.db,
    content.id,
    language,
    version,
    settingsFor(language, given, current, made.automatic),
    { ...made, cues: cues.length, bytes: bytes.length },
    now,
  );
  if (!saved)
    throw conflict(
      `the ${language} captions of ${content.contentKey} were saved by someone else meanwhile: read them again and save anew`,
    );
  await replaceTranscript(deps.db, content, language, passagesOf(cues));
  await captionsChanged(deps, content);
  const track = await trackOr404(deps, content, language);
  return { created: current === null, track: trackView(content, track, deps.origins) };
}

/** What shows the video's captions follows: its feeds, its cached records and stream files. */
async function captionsChanged(deps: Deps, content: Content): Promise<void> {
  if (content.status === "available" && !content.removed)
    await catalogChanged(deps, content.organizationId, { kind: "videos", versions: [content] });
}

export interface CaptionUpload {
  /** The file as sent, UTF-8. */
  body: Uint8Array;
  format: CaptionFormat;
  settings: Partial<TrackSettings>;
}

/** PUT: an uploaded WebVTT or SubRip file becomes the track (a new version of it). */
export async function uploadCaptions(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  language: string,
  upload: CaptionUpload,
) {
  const content = await captionedContent(deps, scope, contentKey);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(upload.body);
  } catch {
    throw invalid("the caption file is not UTF-8 text");
  }
  let cues: Cue[];
  try {
    cues = parseCaptionFile(text, upload.format);
  } catch (err) {
    if (err instanceof CaptionFileError) throw invalid(`the caption file: ${err.message}`);
    throw err;
  }
  return storeCaptionTrack(deps, content, language, cues, upload.settings, {
    automatic: false,
    engine: null,
  });
}

/** PATCH: a track's label, kind or default changes; its text stays. */
export async function updateCaptionTrack(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  language: string,
  given: Partial<TrackSettings>,
) {
  const content = await captionedContent(deps, scope, contentKey);
  const current = await trackOr404(deps, content, language);
  const settings = {
    label: given.label ?? current.label,
    kind: given.kind ?? current.kind,
    isDefault: given.isDefault ?? current.isDefault,
  };
  if (!(await updateTrackSettings(deps.db, content.id, language, settings, deps.now.toISOString())))
    throw notFound(`${contentKey} has no captions in ${language}`);
  await captionsChanged(deps, content);
  return trackView(content, await trackOr404(deps, content, language), deps.origins);
}

/** DELETE: the track goes, every version of its text, and its passages in the index. */
export async function removeCaptionTrack(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  language: string,
) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  const track = await trackOr404(deps, content, language);
  if (!(await deleteTrack(deps.db, content.id, language, deps.now.toISOString())))
    throw notFound(`${contentKey} has no captions in ${language}`);
  await replaceTranscript(deps.db, content, language, []);
  await deleteObjectsUnder(
    deps.bucket,
    captionTrackPrefix(content.contentKey, content.id, language),
  );
  await captionsChanged(deps, content);
  return trackView(content, track, deps.origins);
}

/** The text of a version of a track (the current one by default), or null when not stored. */
export async function keptCaptionText(
  bucket: R2Bucket,
  content: Pick<Content, "contentKey" | "id">,
  language: string,
  version: number,
): Promise<string | null> {
  const object = await bucket.get(captionKey(content.contentKey, content.id, language, version));
  return object ? object.text() : null;
}

/** GET one track: its settings and its cues (of `version`, by default the current one). */
export async function captionTrackCues(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  language: string,
  version?: number,
) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  const track = await trackOr404(deps, content, language);
  const wanted = version ?? track.version;
  if (wanted > track.version)
    throw notFound(`the ${language} captions of ${contentKey} are at version ${track.version}`);
  const text = await keptCaptionText(deps.bucket, content, language, wanted);
  if (text === null) throw notFound(`version ${wanted} of the ${language} captions is not kept`);
  return {
    ...trackView(content, track, deps.origins),
    version: wanted,
    cues: parseCaptionFile(text, "webvtt"),
  };
}

/** Every caption object of a video (its tracks' versions, its jobs' chunks): with the video (E5). */
export function deleteCaptionObjects(
  bucket: R2Bucket,
  content: Pick<Content, "contentKey" | "id">,
): Promise<void> {
  return deleteObjectsUnder(bucket, captionsPrefix(content.contentKey, content.id));
}
