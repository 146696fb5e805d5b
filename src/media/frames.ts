/**
 * "A frame of this video, as a 1920x1080 JPEG": the one interface the service's thumbnails from
 * the video go through, with two implementations.
 *  - Production: Cloudflare's Media Transformations binding (`[media] binding`), output mode
 *    `frame`, reading a clip of the stored video (media/frame-clip.ts): its input must be
 *    under 100 MB.
 *  - Local development and tests: a stand-in that runs ffmpeg (scripts/lib/frame-service.mjs),
 *    reached as a service binding (tests) or at FRAME_SERVICE_URL (npm run dev). It takes the
 *    same inputs over HTTP: the video as the body, the time in the query.
 */
import type { MediaTransformsBinding } from "../shared/bindings";

export interface FrameRequest {
  /** The video: a clip of the stored file (frame-thumbnails.ts), or a small file whole. */
  video: Uint8Array | ReadableStream<Uint8Array>;
  /** Where in the video, in seconds. */
  atSeconds: number;
}

export interface FrameSource {
  /** What makes the frames (logged with each thumbnail made). */
  readonly name: string;
  frame(request: FrameRequest): Promise<Uint8Array>;
}

export const FRAME_WIDTH = 1920;
export const FRAME_HEIGHT = 1080;

async function jpegFrom(response: Response, source: string): Promise<Uint8Array> {
  if (!response.ok)
    throw new Error(`${source}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Production: the Media Transformations binding. The frame is fitted into 1920x1080. */
export function mediaTransformsFrames(binding: MediaTransformsBinding): FrameSource {
  return {
    name: "media-transformations",
    async frame({ video, atSeconds }) {
      const result = binding
        .input(video instanceof Uint8Array ? new Blob([video]).stream() : video)
        .transform({ width: FRAME_WIDTH, height: FRAME_HEIGHT, fit: "contain" })
        .output({ mode: "frame", time: `${atSeconds.toFixed(2)}s`, format: "jpg" });
      return jpegFrom(await result.response(), "media transformations");
    },
  };
}

/**
 * How long the worker waits for the local frame service: longer than the service lets ffmpeg
 * run (scripts/lib/frame-service.mjs, FFMPEG_TIMEOUT_MS), so its own answer normally comes first.
 */
export const FRAME_SERVICE_WAIT_MS = 20_000;

/** Local: the ffmpeg stand-in, POST /frame?time=<seconds> with the video as the body. */
export function frameServiceFrames(
  fetcher: (request: Request) => Promise<Response>,
  { waitMs = FRAME_SERVICE_WAIT_MS }: { waitMs?: number } = {},
): FrameSource {
  return {
    name: "local-ffmpeg",
    async frame({ video, atSeconds }) {
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gaveUp = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const err = new Error(`frame service: no answer within ${waitMs} ms`);
          controller.abort(err);
          reject(err);
        }, waitMs);
      });
      try {
        const request = new Request(
          `http://frames.local/frame?time=${atSeconds.toFixed(2)}&width=${FRAME_WIDTH}&height=${FRAME_HEIGHT}`,
          {
            method: "POST",
            body: video,
            headers: { "Content-Type": "application/octet-stream" },
            signal: controller.signal,
          },
        );
        return await Promise.race([
          fetcher(request).then((response) => jpegFrom(response, "frame service")),
          gaveUp,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The frame source this deployment has: the binding, else the local stand-in, else none (the placeholder stays). */
export function frameSourceOf(env: {
  MEDIA_TRANSFORMS?: MediaTransformsBinding;
  FRAMES?: { fetch(request: Request): Promise<Response> };
  FRAME_SERVICE_URL?: string;
}): FrameSource | null {
  if (env.MEDIA_TRANSFORMS) return mediaTransformsFrames(env.MEDIA_TRANSFORMS);
  const frames = env.FRAMES;
  if (frames) return frameServiceFrames((request) => frames.fetch(request));
  const base = env.FRAME_SERVICE_URL;
  if (base) {
    return frameServiceFrames((request) => {
      const url = new URL(request.url);
      return fetch(new Request(`${base.replace(/\/$/, "")}${url.pathname}${url.search}`, request));
    });
  }
  return null;
}

export { FLAT_FRAME_MAX_BYTES, thumbnailTime } from "../shared/thumbnail-rules";
