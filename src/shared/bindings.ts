// The shapes of the worker's bindings that env.ts names, here so that env.ts imports nothing of
// the layers that use them: the Media Transformations binding (media/frames.ts adapts it), the
// Workers AI binding (media/speech.ts), the
// renditions queue's messages (domain/renditions.ts, domain/live/recording-vod.ts) and the live
// streams' Durable Objects, typed by their RPC methods (src/durable/live-stream.ts implements
// them; domain/live/objects.ts is how the rest of the worker reaches them).
import type { LiveState } from "./vocabulary";

/** The parts of the Media Transformations binding this adapter uses (workers-types' MediaBinding). */
export interface MediaTransformsBinding {
  input(media: ReadableStream<Uint8Array>): {
    transform(options: {
      width?: number;
      height?: number;
      fit?: "contain" | "cover" | "scale-down";
    }): {
      output(options: { mode: "frame"; time: string; format: "jpg" }): {
        response(): Promise<Response> | Response;
      };
    };
  };
}

/** A message of the renditions queue: one chunk of one rung of one video version (domain/renditions.ts). */
export interface RenditionJob {
  contentId: number;
  contentKey: string;
  /** The rung's name, `r360`. */
  rung: string;
  chunk: number;
  /** The chunk length the plan used (the chunks are cut again from it). */
  chunkSeconds: number;
}

/**
 * A message of the same queue: a live stream's recording to remux into an MP4, after which it
 * is packaged and gets its ladder like an upload (domain/live/recording-vod.ts).
 */
export interface RecordingJob {
  recording: true;
  contentId: number;
  contentKey: string;
}

/**
 * A message of the same queue: one chunk of a video's audio to transcribe for its automatic
 * captions (domain/captions/generate.ts).
 */
export interface CaptionJob {
  captions: true;
  /** caption_jobs.id: the request this chunk belongs to. */
  jobId: number;
  contentId: number;
  contentKey: string;
  chunk: number;
}

/**
 * The parts of the Workers AI binding (wrangler `[ai]`) the speech adapter uses: one model run
 * with its input, answering the model's output (media/speech.ts checks its shape).
 */
export interface SpeechModelBinding {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

/**
 * A message of the same queue: a clip to cut from its source's stored segments, remux and
 * publish (domain/clips/make.ts). `start` and `end` are the cut (on the source's keyframes),
 * seconds on the source's timeline.
 */
export interface ClipJob {
  clip: true;
  contentId: number;
  contentKey: string;
  sourceContentId: number;
  sourceContentKey: string;
  start: number;
  end: number;
}

/**
 * A message of the same queue: one pushed segment of a live stream (its service sequence
 * number) to transcode into the stream's rungs (domain/live/ladder.ts).
 */
export interface LiveRungJob {
  liveSegment: true;
  contentId: number;
  contentKey: string;
  seq: number;
}

export type RenditionsQueueMessage =
  | RenditionJob
  | RecordingJob
  | CaptionJob
  | ClipJob
  | LiveRungJob;

/** A live stream's rung (docs/live.md "A ladder while live"): its name, frame and target bit rate. */
export interface LiveRung {
  name: string;
  width: number;
  height: number;
  bitrate: number;
}

/** The rungs a live stream is transcoded into, planned from its first segment's picture. */
export interface LiveLadderPlan {
  source: { width: number; height: number };
  rungs: LiveRung[];
}

/** What a live rung job reads: the segment's stored file, its init segment, the plan if made. */
export interface LiveRungSource {
  file: string;
  map: string | null;
  plan: LiveLadderPlan | null;
}

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
  /** The rungs transcoded while live (docs/live.md "A ladder while live"). */
  rungs: LiveRungStatus[];
}

/** A live rung's progress: its segments, and how long after the source's they were stored. */
export interface LiveRungStatus {
  name: string;
  width: number;
  height: number;
  segments: number;
  /** Seconds from the source segment's listing to the rung's, over the last 60 segments. */
  lagSeconds: { median: number; max: number } | null;
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

/** A chunked segment's init segment (ftyp + moov): its digest names the stored file. */
export interface LowLatencyInit {
  keyHash: string;
  /** The segment's stored file (u<n>.m4s). */
  file: string;
  sha256: string;
  bytes: number;
}

/** A partial segment of a chunked segment, stored. */
export interface LowLatencyPart {
  keyHash: string;
  file: string;
  part: number;
  duration: number;
  independent: boolean;
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

/** A segment of a live stream's timeline: `at` seconds from the stream's first segment. */
export interface TimelineSegment extends RecordingFile {
  at: number;
  duration: number;
  map: string | null;
  discontinuity: boolean;
}

/**
 * What a clip of a live stream reads (domain/clips): the stream's state, its DVR window (the
 * whole recording once ended) and the segments overlapping the asked range, with the init
 * segments they name.
 */
export interface LiveTimeline {
  state: LiveState;
  window: { start: number; end: number };
  segments: TimelineSegment[];
  inits: RecordingFile[];
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
  playlist(contentId: number, delta?: boolean): string | null;
  // Low-Latency HLS (chunked CMAF segments: domain/live/parts.ts, durable/live-parts.ts).
  lowLatencyInit(
    request: LowLatencyInit,
  ): Promise<IngestAnswer & { init?: string; store?: boolean }>;
  lowLatencyPart(request: LowLatencyPart): Promise<IngestAnswer>;
  lowLatencySealed(request: FileStored & { duration: number }): Promise<IngestAnswer>;
  lowLatencyAbandoned(request: {
    keyHash: string;
    file: string;
    tooLarge: boolean;
  }): Promise<IngestAnswer>;
  /** The live playlist, held until it has what a blocking reload asks (bounded); 400 too far ahead. */
  lowLatencyPlaylist(
    contentId: number,
    reload: { msn: number; part: number | null } | null,
    delta?: boolean,
  ): Promise<{ status: 200; text: string } | { status: 400; message: string } | null>;
  /** Waits (bounded) for a part named by a preload hint: whether it is stored. */
  lowLatencyPartReady(contentId: number, part: string): Promise<boolean>;
  recordingParts(contentId: number): RecordingParts | null;
  timeline(contentId: number, from: number, to: number): LiveTimeline | null;
  /** A live rung job's segment (null: no such stream or segment). */
  liveRungSource(contentId: number, seq: number): LiveRungSource | null;
  /** The stream's ladder, planned by its first rung job: the plan kept (the first one made). */
  livePlanned(contentId: number, plan: LiveLadderPlan): LiveLadderPlan | null;
  /** A segment's rungs are stored (their file sizes, by rung name). */
  liveRungsStored(contentId: number, seq: number, bytes: Record<string, number>): boolean;
  /** master.m3u8 or a rung's playlist (r<h>.m3u8); null when there is none. */
  ladderPlaylist(contentId: number, file: string): string | null;
  destroy(contentId: number): Promise<void>;
}

export type LiveStreams = DurableObjectNamespace<LiveStreamRpc>;
