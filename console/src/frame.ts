// The frame the browser shows, as a thumbnail: a <video> of the chosen file drawn on a 1920x1080
// canvas (fitted, black bars when the picture is not 16:9) and encoded as a JPEG within the
// spec's 5 MB. Taken where the service would take it (src/shared/thumbnail-rules.ts), so the
// offered frame is the one the publisher would otherwise get; the publisher can pick another.
import { FLAT_FRAME_MAX_BYTES, thumbnailTime } from "../../src/shared/thumbnail-rules";

const WIDTH = 1920;
const HEIGHT = 1080;
const MAX_BYTES = 5 * 1024 * 1024;

/** Waits for one event of a media element; its error event (a codec the browser lacks) rejects. */
function once(video: HTMLVideoElement, event: "loadeddata" | "seeked"): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      video.removeEventListener(event, done);
      video.removeEventListener("error", failed);
      resolve();
    };
    const failed = () => {
      video.removeEventListener(event, done);
      video.removeEventListener("error", failed);
      reject(new Error("the browser cannot decode this video"));
    };
    video.addEventListener(event, done);
    video.addEventListener("error", failed);
  });
}

/** Waits until the video knows its duration and can draw a frame. */
async function loaded(video: HTMLVideoElement): Promise<void> {
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await once(video, "loadeddata");
  if (!Number.isFinite(video.duration))
    throw new Error("the browser cannot tell this video's duration");
}

/** Moves the video to a time and waits until that frame can be drawn. */
export async function seekTo(video: HTMLVideoElement, seconds: number): Promise<void> {
  await loaded(video);
  const target = Math.min(Math.max(0, seconds), Math.max(0, video.duration - 0.05));
  if (Math.abs(video.currentTime - target) < 0.001) return;
  const seeked = once(video, "seeked");
  video.currentTime = target;
  await seeked;
}

/** The frame the video element shows now, as a 1920x1080 JPEG file. */
export async function frameAsJpeg(video: HTMLVideoElement, name: string): Promise<File> {
  const canvas = document.createElement("canvas");
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const context = canvas.getContext("2d");
  if (!context || !video.videoWidth || !video.videoHeight)
    throw new Error("the browser shows no picture for this video");
  context.fillStyle = "#000";
  context.fillRect(0, 0, WIDTH, HEIGHT);
  const scale = Math.min(WIDTH / video.videoWidth, HEIGHT / video.videoHeight);
  const w = Math.round(video.videoWidth * scale);
  const h = Math.round(video.videoHeight * scale);
  context.drawImage(video, Math.round((WIDTH - w) / 2), Math.round((HEIGHT - h) / 2), w, h);
  // A detailed frame can pass 5 MB at high quality: step the quality down until it fits.
  for (const quality of [0.9, 0.8, 0.65, 0.5]) {
    const blob = await new Promise<Blob | null>((resolve) =>
      canvas.toBlob(resolve, "image/jpeg", quality),
    );
    if (!blob) break;
    if (blob.size <= MAX_BYTES) return new File([blob], name, { type: "image/jpeg" });
  }
  throw new Error("the frame could not be made into a JPEG of at most 5 MB");
}

/** The frame the service would pick: at thumbnailTime, or half way through when that one is flat. */
export async function defaultFrame(
  video: HTMLVideoElement,
  name: string,
): Promise<{ file: File; seconds: number }> {
  await loaded(video);
  let seconds = thumbnailTime(video.duration);
  await seekTo(video, seconds);
  let file = await frameAsJpeg(video, name);
  if (file.size <= FLAT_FRAME_MAX_BYTES && video.duration > 0) {
    await seekTo(video, video.duration / 2);
    const later = await frameAsJpeg(video, name);
    if (later.size > file.size) [file, seconds] = [later, video.duration / 2];
    else await seekTo(video, seconds);
  }
  return { file, seconds };
}
