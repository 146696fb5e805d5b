// The live streams' Durable Objects as the rest of the worker sees them (their RPC methods:
// src/durable/live-stream.ts implements them), typed here so that env.ts and the domain need
// not import the class.
import type { LiveState } from "../../shared/vocabulary";

/** What a stream's Durable Object is set up with (domain/live/streams.ts). */
export interface LiveStreamSetup {
  contentId: number;
  contentKey: string;
  /** SHA-256 (hex) of the stream key: the key itself is shown once and never stored. */
  keyHash: string;
  dvrSeconds: number;
  timeoutSeconds: number;
  segmentMaxBytes: number;
  /** The most bytes the stream stores in all (its organization's plan: domain/quotas.ts). */
  maxBytes: number;
}

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
  writesInFlight: 8,
  maxSegments: 100_000,
} as const;

/** The Durable Object's answer to one encoder request (the worker answers it as is). */
export interface IngestAnswer {
  status: number;
  message: string;
}

/** A live stream's state as its Durable Object keeps it (GET /v2/live). */
export interface LiveStatus {
  state: LiveState;
  dvrWindowSeconds: number;
  timeoutSeconds: number;
  startedAt: string | null;
  endedAt: string | null;
  endReason: string | null;
  lastHeartbeat: string | null;
  segments: number;
  recordedSeconds: number;
  /** Every byte the stream stores: its segments, init segments and files no playlist named yet. */
  bytes: number;
  /** The most it may store (its organization's plan); null for a stream set up before the limit. */
  maxBytes: number | null;
}

/** A file the worker is about to stream into R2 (its Content-Length, or null when streamed). */
export interface FileAnnounced {
  keyHash: string;
  name: string;
  declared: number | null;
}

/** Where the announced file goes (`file`, the stored name), and how many bytes it may have. */
export interface FileSlot {
  status: 100;
  file: string;
  maxBytes: number;
}

/** The announced file, stored: its digest decides whether it is new. */
export interface FileStored {
  keyHash: string;
  name: string;
  file: string;
  sha256: string;
  bytes: number;
}

/** A stored file of a recording and its size. */
export interface RecordingFile {
  file: string;
  bytes: number;
}

/**
 * One run of a recording: the segments between two discontinuities (an encoder restart, or one
 * the encoder marked), one timeline; fMP4: `init` is the init segment they use.
 */
export interface RecordingRun {
  init: RecordingFile | null;
  /** The init segment its segments name (fMP4), whether or not it is stored. */
  map: string | null;
  segments: RecordingFile[];
}

/** An ended stream's recording as stored: its runs in play order. */
export interface RecordingParts {
  runs: RecordingRun[];
}

/** The RPC methods of a live stream's Durable Object. */
export interface LiveStreamRpc extends Rpc.DurableObjectBranded {
  setup(init: LiveStreamSetup): Promise<void>;
  rotateKey(contentId: number, keyHash: string): boolean;
  status(contentId: number): LiveStatus | null;
  /** Whether the key is the stream's (null: no stream), for streams whose key hash D1 lacks. */
  keyMatches(keyHash: string): boolean | null;
  takePlaylist(request: { keyHash: string; text: string }): Promise<IngestAnswer>;
  announceFile(request: FileAnnounced): Promise<FileSlot | IngestAnswer>;
  fileStored(request: FileStored): Promise<IngestAnswer>;
  /** The announced file was not stored: past `maxBytes` (then 413), or the client went away. */
  fileAbandoned(request: {
    keyHash: string;
    file: string;
    tooLarge: boolean;
  }): Promise<IngestAnswer>;
  end(contentId: number): Promise<LiveStatus | null>;
  playlist(contentId: number): string | null;
  recordingParts(contentId: number): RecordingParts | null;
  destroy(contentId: number): Promise<void>;
}

export type LiveStreams = DurableObjectNamespace<LiveStreamRpc>;

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
