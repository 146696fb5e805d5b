// Captions (write credentials; docs/captions.md): the caption tracks the service keeps for a
// video (upload, list, read, change, delete), automatic captions made from the audio, and the
// organization's caption settings. Under /v2/content the errors are {message}, as the content
// flow's (http/errors.ts errorStyleOf); the settings answer {status: "KO", error}.
import { createRoute, z } from "@hono/zod-openapi";
import { limitBody } from "../../http/body-limit";
import { jsonBody, jsonContent, koErrors, messageErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  captionJob,
  captionList,
  captionSettings,
  captionSettingsBody,
  captionTrack,
  captionTrackWithCues,
  contentKeyParam,
  generateBody,
  trackParams,
  trackQuery,
  trackSettingsBody,
  uploadQuery,
} from "../../schemas/captions";
import { CAPTION_FILE_MAX_BYTES, CAPTION_LANGUAGES_MAX } from "../../shared/captions";

const base = { tags: ["Captions"], security: SECURITY.write };

export const listTracks = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "get",
  path: "/v2/content/captions/{contentKey}",
  operationId: "listCaptionTracks",
  summary: "A video's caption tracks",
  description:
    "The caption tracks the service keeps for the video, by language: label, kind, default, whether made from the audio, version, and `url`, the WebVTT file on the service's origin (also in the HLS master playlist, the DASH manifest, the embed's captions menu and the record's `subtitles`). `automatic`: the latest request for automatic captions and how it went.",
  request: { params: contentKeyParam },
  responses: {
    200: jsonContent(captionList, "The tracks"),
    ...messageErrors(400, 401, 403, 404, 429),
  },
});

export const uploadTrack = createRoute({
  ...base,
  middleware: [limitBody(CAPTION_FILE_MAX_BYTES), ...credentials("write")],
  method: "put",
  path: "/v2/content/captions/{contentKey}/{language}",
  operationId: "putCaptionTrack",
  summary: "Upload a caption file (WebVTT or SubRip) as a video's track in a language",
  description: `The body is the file: \`Content-Type: text/vtt\` (WebVTT) or \`application/x-subrip\` (SubRip, .srt: converted to WebVTT), UTF-8, at most ${CAPTION_FILE_MAX_BYTES} bytes. A mistake is a 400 naming its line (\`line 12: the cue ends (00:00:03.000) before it starts (00:00:04.000)\`). A new language makes a track (201; at most ${CAPTION_LANGUAGES_MAX} languages per video, its subtitle URLs counted); an existing one gets a new version (200; earlier versions are kept). Label, kind and default in the query. A video that is rejected or expired has no captions (409).`,
  request: {
    params: trackParams,
    query: uploadQuery,
    body: {
      required: true,
      content: {
        "text/vtt": { schema: z.string().openapi({ format: "binary" }) },
        "application/x-subrip": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
  },
  responses: {
    200: jsonContent(captionTrack, "Saved as the track's next version"),
    201: jsonContent(captionTrack, "A new track"),
    ...messageErrors(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

export const readTrack = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "get",
  path: "/v2/content/captions/{contentKey}/{language}",
  operationId: "getCaptionTrack",
  summary: "A caption track and its cues",
  description:
    "The track and its cues (start and end in seconds, WebVTT text): what the console's editor shows. `version` reads an earlier one.",
  request: { params: trackParams, query: trackQuery },
  responses: {
    200: jsonContent(captionTrackWithCues, "The track and its cues"),
    ...messageErrors(400, 401, 403, 404, 429),
  },
});

export const changeTrack = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "patch",
  path: "/v2/content/captions/{contentKey}/{language}",
  operationId: "patchCaptionTrack",
  summary: "Change a caption track's label, kind or default",
  description: "Its text stays (upload a file to change it). One default track per video.",
  request: { params: trackParams, body: jsonBody(trackSettingsBody) },
  responses: {
    200: jsonContent(captionTrack, "The track"),
    ...messageErrors(400, 401, 403, 404, 409, 413, 429),
  },
});

export const deleteTrack = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "delete",
  path: "/v2/content/captions/{contentKey}/{language}",
  operationId: "deleteCaptionTrack",
  summary: "Delete a caption track",
  description:
    "Every version of its text goes, and its words leave the search index; players stop listing it (cached playlists within 300 s).",
  request: { params: trackParams },
  responses: {
    200: jsonContent(captionTrack, "The track as it was"),
    ...messageErrors(400, 401, 403, 404, 429),
  },
});

export const generate = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "post",
  path: "/v2/content/captions/{contentKey}/generate",
  operationId: "generateCaptions",
  summary: "Make captions from the video's audio",
  description:
    "A speech engine (Workers AI's Whisper; locally an offline one) transcribes the audio into a track labelled \"<Language> (auto-generated)\", kind captions, in `language` or the one it detects; `captions.ready` is sent when it is saved (`captions.failed` if it cannot be). 409 when the deployment has no engine, the video has no audio or is not published, captions are being made for it already, or `language` has the publisher's own track (automatic captions never replace it). 400 for a language the engine does not transcribe.",
  request: { params: contentKeyParam, body: jsonBody(generateBody) },
  responses: {
    202: jsonContent(captionJob, "Requested: its state (GET the tracks to follow it)"),
    ...messageErrors(400, 401, 403, 404, 409, 413, 429),
  },
});

export const showSettings = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "get",
  path: "/v2/captions/settings",
  operationId: "getCaptionSettings",
  summary: "The organization's caption settings",
  description:
    "Automatic captions for every video published, and search by what is said; `engine` says what this deployment transcribes with.",
  responses: {
    200: jsonContent(captionSettings, "The settings"),
    ...koErrors(401, 403, 429),
  },
});

export const updateSettings = createRoute({
  ...base,
  middleware: credentials("write"),
  method: "put",
  path: "/v2/captions/settings",
  operationId: "setCaptionSettings",
  summary: "Set the organization's caption settings",
  description:
    "`autoCaptions`: videos published from now on get automatic captions (in `autoLanguage`, or detected). `transcriptSearch`: E13 (titleString), E14, E15 and the console's library find videos by words said in them, and each such result says where (`spoken.start`, seconds). Not a sub-organization's to change (403).",
  request: { body: jsonBody(captionSettingsBody) },
  responses: {
    200: jsonContent(captionSettings, "The settings"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});
