// What a live stream's start and end change in the catalog (docs/live.md "States"), told by its
// Durable Object (src/durable/live-stream.ts) once each: the record goes live (published,
// isLive true, urlHLS the live playlist), then becomes a video on demand (isLive false, urlHLS
// the recording, its duration), with the webhooks live.started, live.ended and video.ready.
import { findContentByKeyAnyOrg, updateContent } from "../../db/content";
import { catalogChanged } from "../catalog-changed";
import { toContentObject } from "../content/content";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";

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
  summary: { durationSeconds: number; segments: number; reason: string; recording: boolean },
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
}
