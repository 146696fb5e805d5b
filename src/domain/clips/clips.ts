// POST /v2/clips (docs/api.md "Clips"): a new video cut from a time range of a video or of a
// live stream's DVR window. The request checks the range against the source and decides the cut
// (cut.ts), records the clip (status processing: not listed, no stream yet) and queues its job
// on the renditions queue (make.ts), which makes and publishes its own file in seconds.
import { isUniqueViolation } from "../../db/client";
import type { ContentScope } from "../../db/content";
import { deleteContentRow, findContent, insertContent } from "../../db/content";
import type { Content } from "../../db/schema";
import type { CreateClipBody } from "../../schemas/clips";
import type { ClipJob } from "../../shared/bindings";
import { conflict, invalid, notFound } from "../../shared/errors";
import { mediaKey } from "../../storage/layout";
import { chosenContentKey, newContentMetadata, toContentObject } from "../content/content";
import { checkVideoPlayerFields } from "../player/items";
import { emitWebhookEvent } from "../webhooks/emit";
import { type ClipDeps, cutClip } from "./cut";

/**
 * What a clip takes from its source unless the body says otherwise: its title, description and
 * labels (so it lands in the source's feeds) and its playback rules (a clip of a video behind
 * signed playback is not public).
 */
function inherited(source: Content, body: CreateClipBody) {
  return newContentMetadata({
    ...body,
    title: body.title ?? source.title,
    description: body.description ?? source.description,
    categories: body.categories ?? source.categories,
    tags: body.tags ?? source.tags,
    signedPlayback: body.signedPlayback ?? source.signedPlayback,
    enforcePlaybackWindows: body.enforcePlaybackWindows ?? source.enforcePlaybackWindows,
  });
}

/** POST /v2/clips: the clip's record (processing) and its cut; its job makes it (202). */
export async function createClip(deps: ClipDeps, scope: ContentScope, body: CreateClipBody) {
  const { db } = deps;
  const queue = deps.renditionJobs;
  if (!queue) throw conflict("clips are remuxed by the transcoder, and this deployment has none");
  const source = await findContent(db, scope, body.sourceContentKey);
  if (!source) throw notFound(`sourceContentKey: ${body.sourceContentKey} does not exist`);
  const cut = await cutClip(deps, source, body.start, body.end);
  await checkVideoPlayerFields(deps, scope.organizationId, body);
  const contentKey = await chosenContentKey(db, body.contentKey);
  const now = deps.now.toISOString();
  try {
    await insertContent(db, {
      organizationId: scope.organizationId,
      subOrganizationId: scope.subOrganizationId,
      contentKey,
      ...inherited(source, body),
      isLive: false,
      status: "processing",
      contentSize: 0,
      suffix: ".mp4",
      mediaKey: mediaKey(contentKey, ".mp4"),
      chunkSize: 0,
      createdAt: now,
      updatedAt: now,
    });
  } catch (err) {
    if (isUniqueViolation(err, "contents.content_key"))
      throw invalid(`contentKey: ${contentKey} is already in use`);
    throw err;
  }
  const clip = (await findContent(db, scope, contentKey))!;
  const job: ClipJob = {
    clip: true,
    contentId: clip.id,
    contentKey,
    sourceContentId: source.id,
    sourceContentKey: source.contentKey,
    start: cut.start,
    end: cut.end,
  };
  try {
    await queue.send(job, { contentType: "json" });
  } catch (err) {
    // No clip left waiting for a job that was never queued.
    await deleteContentRow(db, clip.id);
    throw err;
  }
  const object = toContentObject(clip, deps.origins);
  await emitWebhookEvent(deps, clip, "video.created", object);
  return {
    ...object,
    clip: { sourceContentKey: source.contentKey, start: cut.start, end: cut.end },
  };
}
