// What a live stream's start and end change in the catalog (docs/live.md "States"), told by its
// Durable Object (src/durable/live-stream.ts) once each: the record goes live (published,
// isLive true, urlHLS the live playlist), then becomes a video on demand (isLive false, urlHLS
// the recording, its duration), with the webhooks live.started, live.ended and video.ready.
import { findContentByKeyAnyOrg, updateContent } from "../../db/content";
import type { Content } from "../../db/schema";
import { concat } from "../../media/bmff/writer";
import { checkThumbnail } from "../../media/jpeg";
import { tsKeyframeClip } from "../../media/ts-keyframe";
import { frameThumbnailKey } from "../../storage/layout";
import { catalogChanged } from "../catalog-changed";
import { toContentObject } from "../content/content";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { queueRecordingRemux } from "./recording-vod";

export type { IngestAnswer, LiveStatus, LiveStreamSetup } from "./objects";

interface Target {
  contentId: number;
  contentKey: string;
}

async function contentOf(deps: Deps, target: Target) {
  const content = await findContentByKeyAnyOrg(deps.db, target.contentKey);
  return content && content.id === target.contentId ? content : null;
}

/** The first segments arrived: the record is published, live. */
export async function announceLiveStarted(deps: Deps, target: Target): Promise<void> {
  const content = await contentOf(deps, target);
  if (!content || content.liveState !== "idle") return;
  const now = deps.now.toISOString();
  const live = await updateContent(deps.db, content, {
    status: "available",
    isLive: true,
    liveState: "live",
    publishedAt: content.publishedAt ?? now,
    updatedAt: now,
  });
  await catalogChanged(deps, live.organizationId, { kind: "videos", versions: [content, live] });
  await emitWebhookEvent(deps, live, "live.started", toContentObject(live, deps.origins));
}

/** The stream ended: its recording (every segment, stored) is the video on demand. */
export async function announceLiveEnded(
  deps: Deps,
  target: Target,
  summary: {
    durationSeconds: number;
    segments: number;
    reason: string;
    recording: boolean;
    /**
     * The R2 keys of a media segment to take the thumbnail from, and of its fMP4 init segment
     * (null: an MPEG-TS segment).
     */
    thumbnailFrom: { init: string | null; segment: string } | null;
  },
): Promise<void> {
  const content = await contentOf(deps, target);
  if (!content || content.liveState === "ended" || content.liveState === null) return;
  const now = deps.now.toISOString();
  const ended = await updateContent(deps.db, content, {
    isLive: false,
    liveState: "ended",
    // Ended before any segment: nothing to watch, the record stays unpublished.
    ...(summary.recording
      ? { duration: Math.round(summary.durationSeconds * 1000) / 1000 }
      : { status: "expired" as const }),
    updatedAt: now,
  });
  if (content.status === "available")
    await catalogChanged(deps, ended.organizationId, {
      kind: "videos",
      versions: [content, ended],
    });
  const object = toContentObject(ended, deps.origins);
  await emitWebhookEvent(deps, ended, "live.ended", {
    ...object,
    live: { reason: summary.reason, segments: summary.segments },
  });
  if (summary.recording) await emitWebhookEvent(deps, ended, "video.ready", object);
  if (summary.thumbnailFrom) deps.defer(recordingThumbnail(deps, ended, summary.thumbnailFrom));
  // Where a transcoder is: the recording is remuxed into an MP4, then packaged, framed and
  // given its ladder like an upload (recording-vod.ts).
  if (summary.recording) await queueRecordingRemux(deps, ended);
}

/**
 * The recording's thumbnail when the publisher gave none: the first frame of a segment a tenth
 * of the way in (fMP4: its init and itself make a small fragmented MP4; MPEG-TS: its first
 * keyframe made a one-frame MP4, media/ts-keyframe.ts), through the frame source of uploaded
 * videos (content/frame-thumbnails.ts). A failure is logged: the placeholder stays.
 */
async function recordingThumbnail(
  deps: Deps,
  content: Content,
  from: { init: string | null; segment: string },
): Promise<void> {
  if (content.thumbnailUrl !== null || content.thumbnailUploaded || !deps.frames) return;
  try {
    const read = async (key: string) => {
      const object = await deps.bucket.get(key);
      if (!object) throw new Error(`${key} is missing`);
      return new Uint8Array(await object.arrayBuffer());
    };
    const segment = await read(from.segment);
    const video = from.init ? concat([await read(from.init), segment]) : tsKeyframeClip(segment);
    if (!video) throw new Error("no H.264 keyframe in the MPEG-TS segment");
    const jpeg = await deps.frames.frame({ video, atSeconds: 0 });
    const problem = checkThumbnail(jpeg);
    if (problem) throw new Error(`not a valid thumbnail: ${problem}`);
    await deps.bucket.put(frameThumbnailKey(content.contentKey), jpeg, {
      httpMetadata: { contentType: "image/jpeg" },
    });
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "thumbnail of a live recording failed",
        content_key: content.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
  }
}
