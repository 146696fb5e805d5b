// The live streams' Durable Objects as the rest of the worker sees them (their RPC methods:
// src/durable/live-stream.ts implements them), typed by shared/bindings.ts so that env.ts and
// the domain need not import the class.
import type { LiveState } from "../../shared/vocabulary";
import type { LiveStreams } from "../../shared/bindings";

// The RPC types live beside the worker's other binding types (env.ts names the namespace).
export type {
  LiveStreamSetup,
  IngestAnswer,
  LiveStatus,
  IngestRequest,
  RecordingFile,
  RecordingRun,
  RecordingParts,
  LiveStreamRpc,
  LiveStreams,
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
