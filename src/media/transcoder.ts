/**
 * "This chunk at this rung, keyframes here": the one interface rendition transcoding goes
 * through. One program answers it, containers/transcoder/transcoder.mjs (ffmpeg behind HTTP),
 * reached three ways:
 *  - production: a Cloudflare Container running that program's image (the TRANSCODER_CONTAINER
 *    Durable Object namespace, src/transcoder-container.ts);
 *  - tests: the same program as the TRANSCODER service binding (vitest.config.ts);
 *  - npm run dev: the same program as a local process at TRANSCODER_URL.
 */

export interface TranscodeRequest {
  /** The chunk: a standalone video-only MP4 (media/renditions/chunk.ts). */
  chunk: ReadableStream<Uint8Array> | Uint8Array;
  /** Its size in bytes (a stream's body needs it for fixed-length uploads). */
  size: number;
  width: number;
  height: number;
  bitrate: number;
  timescale: number;
  /** Seconds into the chunk where keyframes must be. */
  keyframes: number[];
}

/**
 * The largest recording the program remuxes (its MAX_REMUX_INPUT_BYTES: input and output fit a
 * standard-2 instance's disk): a larger one is not sent at all.
 */
export const MAX_REMUX_BYTES = 5 * 1000 * 1000 * 1000;

/** A live recording to remux into one MP4 (docs/live.md "The recording's ladder"). */
export interface RemuxRequest {
  /** Its TS segments in order (`mpegts`), or its init segment then its fMP4 segments (`mp4`). */
  recording: ReadableStream<Uint8Array>;
  /** Its bytes; unknown (a clip packaged as it is sent): streamed without a length. */
  size?: number;
  format: "mpegts" | "mp4";
  /**
   * The bytes of each run (segments between discontinuities, each fMP4 run with its init), in
   * order, when there are several: the transcoder joins them into one timeline.
   */
  runs?: number[];
}

/** One chunk of a video's audio for a speech engine (automatic captions: containers/transcoder/audio.mjs). */
export interface AudioRequest {
  /** The chunk's audio: an MP4 (an init segment and the source's fMP4 audio segments). */
  audio: Uint8Array;
  /** What the speech engine takes: 16 kHz mono WAV or MP3. */
  format: "wav" | "mp3";
  /** The longest piece, in seconds (the engine's input limit). */
  pieceSeconds: number;
}

/** A piece of a chunk's audio; times in seconds from the chunk's first sample. */
export interface AudioPiece {
  start: number;
  end: number;
  bytes: Uint8Array;
}

/** A live stream's pushed segment (docs/live.md "A ladder while live"). */
export interface LiveSegmentRequest {
  /** The segment: MPEG-TS, or its fMP4 init segment then the media segment. */
  segment: Uint8Array;
  format: "mpegts" | "mp4";
}

export interface Transcoder {
  readonly name: string;
  /** The segment's picture size. */
  liveProbe?(request: LiveSegmentRequest): Promise<{ width: number; height: number }>;
  /** The segment in each rung, timestamps and keyframes kept: one file per rung, in order. */
  liveSegment?(
    request: LiveSegmentRequest & { rungs: { width: number; height: number; bitrate: number }[] },
  ): Promise<Uint8Array[]>;
  transcode(request: TranscodeRequest): Promise<Uint8Array>;
  /** The chunk's audio decoded and cut into pieces that tile it. */
  extractAudio?(request: AudioRequest): Promise<AudioPiece[]>;
  /** The recording's samples in one MP4, streamed back (it may be gigabytes) with its size. */
  remux?(request: RemuxRequest): Promise<{ body: ReadableStream<Uint8Array>; size: number }>;
}

/**
 * The transcoder refused the chunk for good (4xx): retrying the same bytes will not help. The
 * message is the whole answer (for the log); `reason` a short line a publisher may see: the
 * status and the transcoder's first line, any path in it taken out.
 */
export class TranscodeRefused extends Error {
  readonly reason: string;
  constructor(message: string, reason = publicLine(message)) {
    super(message);
    this.reason = reason;
  }
}

/** A line of a program's output fit for a publisher: its first line, no paths, at most 160 characters. */
export function publicLine(text: string): string {
  const first = text.trim().split("\n")[0] ?? "";
  return first.replace(/(?:file:)?\/[^\s:'"]+/g, "<file>").slice(0, 160);
}

type Fetch = (request: Request) => Promise<Response>;

/** The pieces an /audio answer lists (X-Audio-Pieces), cut out of its body. */
export function audioPieces(listed: string | null, body: Uint8Array): AudioPiece[] {
  let list: unknown;
  try {
    list = JSON.parse(listed ?? "");
  } catch {
    throw new Error("transcoder: the audio answer lists no pieces");
  }
  if (!Array.isArray(list)) throw new Error("transcoder: the audio answer lists no pieces");
  const pieces: AudioPiece[] = [];
  let at = 0;
  for (const p of list as { start?: unknown; end?: unknown; bytes?: unknown }[]) {
    const { start, end, bytes } = p;
    if (
      typeof start !== "number" ||
      typeof end !== "number" ||
      typeof bytes !== "number" ||
      !Number.isSafeInteger(bytes) ||
      bytes < 0 ||
      at + bytes > body.length
    )
      throw new Error("transcoder: the audio answer's pieces do not match its body");
    pieces.push({ start, end, bytes: body.subarray(at, at + bytes) });
    at += bytes;
  }
  if (at !== body.length)
    throw new Error("transcoder: the audio answer's pieces do not match its body");
  return pieces;
}

function remuxQuery(r: RemuxRequest): URLSearchParams {
  const query = new URLSearchParams({ format: r.format });
  if (r.runs && r.runs.length > 1) query.set("runs", r.runs.join(","));
  return query;
}

/**
 * What a failed answer of the transcoder throws: 4xx a refusal (for good), with the answer's
 * first line as its reason; anything else an Error for a retry.
 */
async function refusal(name: string, what: string, response: Response): Promise<Error> {
  const text = (await response.text()).slice(0, 300);
  const message = `${name}: ${what}HTTP ${response.status} ${text}`;
  if (response.status >= 400 && response.status < 500)
    return new TranscodeRefused(message, `HTTP ${response.status}: ${publicLine(text)}`);
  return new Error(message);
}

/** The transcoder program over HTTP, through `fetcher`. */
export function httpTranscoder(name: string, fetcher: Fetch): Transcoder {
  return {
    name,
    async transcode(r) {
      const query = new URLSearchParams({
        width: String(r.width),
        height: String(r.height),
        bitrate: String(r.bitrate),
        timescale: String(r.timescale),
        keyframes: r.keyframes.map((t) => t.toFixed(6)).join(","),
      });
      const body =
        r.chunk instanceof Uint8Array
          ? r.chunk
          : r.chunk.pipeThrough(new FixedLengthStream(r.size));
      const response = await fetcher(
        new Request(`http://transcoder.local/transcode?${query}`, {
          method: "POST",
          body,
          headers: { "Content-Type": "video/mp4" },
        }),
      );
      if (!response.ok) throw await refusal(name, "", response);
      return new Uint8Array(await response.arrayBuffer());
    },
    async extractAudio(r) {
      const query = new URLSearchParams({ format: r.format, piece: String(r.pieceSeconds) });
      const response = await fetcher(
        new Request(`http://transcoder.local/audio?${query}`, {
          method: "POST",
          body: r.audio,
          headers: { "Content-Type": "audio/mp4" },
        }),
      );
      if (!response.ok) {
        const message = `${name}: audio: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`;
        if (response.status >= 400 && response.status < 500) throw new TranscodeRefused(message);
        throw new Error(message);
      }
      return audioPieces(
        response.headers.get("X-Audio-Pieces"),
        new Uint8Array(await response.arrayBuffer()),
      );
    },
    async liveProbe(r) {
      const response = await fetcher(
        new Request(`http://transcoder.local/live-probe?format=${r.format}`, {
          method: "POST",
          body: r.segment,
        }),
      );
      if (!response.ok) throw await refusal(name, "live probe: ", response);
      return (await response.json()) as { width: number; height: number };
    },
    async liveSegment(r) {
      const rungs = r.rungs.map((x) => `${x.width}:${x.height}:${x.bitrate}`).join(",");
      const response = await fetcher(
        new Request(`http://transcoder.local/live-segment?format=${r.format}&rungs=${rungs}`, {
          method: "POST",
          body: r.segment,
        }),
      );
      if (!response.ok) throw await refusal(name, "live segment: ", response);
      const lengths = (response.headers.get("X-Rung-Bytes") ?? "").split(",").map(Number);
      const body = new Uint8Array(await response.arrayBuffer());
      const total = lengths.reduce((a, b) => a + b, 0);
      if (lengths.length !== r.rungs.length || total !== body.length)
        throw new Error(`${name}: live segment: the answer's X-Rung-Bytes does not match its body`);
      let at = 0;
      return lengths.map((n) => body.subarray(at, (at += n)));
    },
    async remux(r) {
      const response = await fetcher(
        new Request(`http://transcoder.local/remux?${remuxQuery(r)}`, {
          method: "POST",
          body:
            r.size === undefined
              ? r.recording
              : r.recording.pipeThrough(new FixedLengthStream(r.size)),
          headers: { "Content-Type": r.format === "mp4" ? "video/mp4" : "video/mp2t" },
        }),
      );
      const size = Number(response.headers.get("Content-Length"));
      if (!response.ok || !response.body || !Number.isSafeInteger(size) || size <= 0)
        throw await refusal(name, "remux: ", response);
      return { body: response.body, size };
    },
  };
}

/** What a deployment may have (env.ts). */
export interface TranscoderBindings {
  /** Production: the Container's Durable Object namespace; one instance per chunk job name. */
  TRANSCODER_CONTAINER?: {
    idFromName(name: string): DurableObjectId;
    get(id: DurableObjectId): { fetch(request: Request): Promise<Response> };
  };
  /** "true" where the Container runs (production: wrangler.toml [vars]); else it is not asked. */
  TRANSCODER_CONTAINERS_ENABLED?: string;
  TRANSCODER?: { fetch(request: Request): Promise<Response> };
  TRANSCODER_URL?: string;
}

/**
 * Production instances: a job goes to one of this many named Container instances (its chunk
 * number picks it), so a long video's chunks run side by side on up to this many.
 */
export const CONTAINER_INSTANCES = 8;

/**
 * The transcoder this deployment has, or null (streams stay single-variant). The local ones
 * first: wrangler.toml binds the Container's namespace everywhere, but only production runs
 * containers (`[dev] enable_containers = false`).
 */
export function transcoderOf(env: TranscoderBindings, instance = 0): Transcoder | null {
  const binding = env.TRANSCODER;
  if (binding) return httpTranscoder("service-binding", (request) => binding.fetch(request));
  const base = env.TRANSCODER_URL;
  if (base)
    return httpTranscoder("local-ffmpeg", (request) => {
      const url = new URL(request.url);
      return fetch(new Request(`${base.replace(/\/$/, "")}${url.pathname}${url.search}`, request));
    });
  const containers = env.TRANSCODER_CONTAINER;
  if (containers && env.TRANSCODER_CONTAINERS_ENABLED === "true") {
    const stub = containers.get(
      containers.idFromName(`transcoder-${instance % CONTAINER_INSTANCES}`),
    );
    return httpTranscoder("container", (request) => stub.fetch(request));
  }
  return null;
}
