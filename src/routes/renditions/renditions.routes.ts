// The rendition ladder (write credentials; errors {status: "KO", error}): the organization's
// ladder and a video's rungs and their states (docs/renditions.md).
import { createRoute } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { contentKeyQuery } from "../../schemas/content";
import {
  contentRenditions,
  ladder,
  ladderBody,
  retriedRenditions,
  retryBody,
} from "../../schemas/renditions";

const base = {
  tags: ["Renditions"],
  security: SECURITY.write,
  middleware: credentials("write"),
};

export const showLadder = createRoute({
  ...base,
  method: "get",
  path: "/v2/renditions/ladder",
  operationId: "getRenditionLadder",
  summary: "The organization's rendition ladder",
  description:
    "The H.264 rungs transcoded below each video's own resolution (the source stays the top variant); the default is Apple's HLS authoring ladder (720p 3 Mbit/s, 540p 2 Mbit/s, 360p 365 kbit/s, 234p 145 kbit/s).",
  responses: {
    200: jsonContent(ladder, "The ladder"),
    ...koErrors(401, 403, 429),
  },
});

export const updateLadder = createRoute({
  ...base,
  method: "put",
  path: "/v2/renditions/ladder",
  operationId: "setRenditionLadder",
  summary: "Set the organization's rendition ladder (or turn it off)",
  description:
    "Applies to videos published from now on. `rungs: []` turns renditions off (one variant, the source); `null` goes back to the default. A video at or below a rung's height gets no copy of it.",
  request: { body: jsonBody(ladderBody) },
  responses: {
    200: jsonContent(ladder, "The ladder"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});

export const contentRenditionStates = createRoute({
  ...base,
  method: "get",
  path: "/v2/content/renditions",
  operationId: "getContentRenditions",
  summary: "A video's renditions and their states",
  description:
    "Each rung planned for the video: pending (being transcoded), ready (listed in its master playlist and DASH manifest, with the measured peak and average bit rate), or failed (with the reason; the source still plays). Empty when the video gets no rung. A rung none of whose jobs started or finished for an hour is failed (its job died or was lost). For a live recording, `recording` is its remux's state (the ladder follows it).",
  request: { query: contentKeyQuery },
  responses: {
    200: jsonContent(contentRenditions, "The rungs, highest first"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const retryRenditions = createRoute({
  ...base,
  method: "post",
  path: "/v2/content/renditions/retry",
  operationId: "retryContentRenditions",
  summary: "Transcode a video's failed renditions again",
  description:
    'Each failed rung (or only `rung`) that the organization\'s ladder still plans for the video goes back to pending, sized and at the bit rate the ladder says now, and is transcoded again; ready and pending rungs are left alone. A video rejected because its top rung failed for a passing reason (its job died, the transcoder kept failing) is processing again, unlisted until that rung is ready. A live recording whose remux failed has it queued again (retried: ["recording"]). 409 when nothing failed (a second retry finds the rungs pending: nothing is queued twice), when the ladder no longer has the failed rungs, or when the deployment has no transcoder.',
  request: { body: jsonBody(retryBody) },
  responses: {
    200: jsonContent(retriedRenditions, "The rungs queued again and every rung's state"),
    ...koErrors(400, 401, 403, 404, 409, 413, 429),
  },
});
