// The live streams' Durable Objects as the rest of the worker sees them (their RPC methods:
// src/durable/live-stream.ts implements them), typed by shared/bindings.ts so that env.ts and
// the domain need not import the class.

import type { LiveStreams } from "../../shared/bindings";
import type { LiveState } from "../../shared/vocabulary";

/**
 * The bounds every stream's Durable Object keeps (docs/live.md "Limits and settings"): an idle
 * stream ends this long after its creation; a stored file no playlist names is deleted this
 * long after it arrived; a file being written is given up this long after it was announced;
 * at most this many files are written at once; a recording holds at most this many segments.
 */
export const LIVE_BOUNDS = {
  idleStreamMs: 24 * 60 * 60_000,
  unlistedFileMs: 2 * 60_000,
  writeMs: 10 * 60_000,
  /** An ENDLIST waiting for files the encoder listed: ended with what came after this silence. */
  pendingEndMs: 30_000,
  writesInFlight: 8,
  maxSegments: 100_000,
} as const;

// The RPC types live beside the worker's other binding types (env.ts names the namespace).
export type {
  FileAnnounced,
  FileSlot,
  FileStored,
  IngestAnswer,
  LiveLadderPlan,
  LiveRungSource,
  LiveStatus,
  LiveStreamRpc,
  LiveStreamSetup,
  LiveStreams,
  LiveTimeline,
  RecordingFile,
  RecordingParts,
  RecordingRun,
  TimelineSegment,
} from "../../shared/bindings";

/** The one Durable Object of a content key's live stream. */
export const streamObject = (ns: LiveStreams, contentKey: string) =>
  ns.get(ns.idFromName(contentKey));

/** E5 of a live stream: its Durable Object deletes the stored files and its state. */
export async function destroyLiveStream(
  ns: LiveStreams | undefined,
  content: { id: number; contentKey: string; liveState: LiveState | null },
): Promise<void> {
  if (!ns || content.liveState === null) return;
  await streamObject(ns, content.contentKey).destroy(content.id);
}
