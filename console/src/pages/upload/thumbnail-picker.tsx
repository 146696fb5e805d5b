// The thumbnail of a job about to be uploaded: a frame of the video (offered at once, or the one
// the publisher scrubs to), a JPEG of 1920x1080, or none (the service then makes one).
import { useEffect, useRef, useState } from "preact/hooks";
import { defaultFrame, frameAsJpeg } from "../../frame";
import type { Job } from "./jobs";

/** Why a chosen JPEG cannot be the thumbnail, or null. */
async function thumbnailProblem(file: File): Promise<string | null> {
  if (file.type !== "image/jpeg") return "the thumbnail must be a JPEG";
  if (file.size > 5 * 1024 * 1024) return "the thumbnail must be at most 5 MB";
  const image = await createImageBitmap(file).catch(() => null);
  if (!image) return "the thumbnail is not a readable image";
  const { width, height } = image;
  image.close();
  return width === 1920 && height === 1080
    ? null
    : `the thumbnail is ${width}x${height}; it must be 1920x1080`;
}

/** A JPEG's object URL for an <img>, revoked when the file changes or the view goes. */
function useObjectUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setUrl(null);
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}

/**
 * The thumbnail of a video about to be uploaded: the frame the browser shows where the service
 * would take it is offered at once; the publisher can play or scrub the video and take the frame
 * shown, choose a JPEG, or upload none and let the service make one from the video.
 */
export function ThumbnailPicker({
  job,
  update,
}: {
  job: Job;
  update: (change: Partial<Job>) => void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [videoUrl, setVideoUrl] = useState<string | null>(null);
  const [problem, setProblem] = useState("");
  /** False when the browser cannot decode the file (a codec it lacks): the service still can. */
  const [playable, setPlayable] = useState(true);
  const preview = useObjectUrl(job.thumbnail);
  const frameName = job.file.name.replace(/\.[^.]+$/, "") + "-frame.jpg";

  useEffect(() => {
    const url = URL.createObjectURL(job.file);
    setVideoUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [job.file]);

  useEffect(() => {
    const element = video.current;
    if (!element || !videoUrl || job.thumbnailFrom !== "offering") return;
    let current = true;
    defaultFrame(element, frameName).then(
      ({ file, seconds }) =>
        current && update({ thumbnail: file, thumbnailFrom: { frameAt: seconds } }),
      (err: Error) => {
        if (!current) return;
        setPlayable(false);
        setProblem(`${err.message}: the service will make the thumbnail from the video`);
        update({ thumbnailFrom: "none" });
      },
    );
    return () => void (current = false);
  }, [videoUrl]);

  const takeShownFrame = async () => {
    const element = video.current;
    if (!element) return;
    element.pause();
    try {
      update({
        thumbnail: await frameAsJpeg(element, frameName),
        thumbnailFrom: { frameAt: element.currentTime },
        message: "",
      });
    } catch (err) {
      setProblem((err as Error).message);
    }
  };

  const chooseJpeg = async (file: File | undefined) => {
    if (!file) return;
    const refused = await thumbnailProblem(file);
    if (refused) return update({ message: refused });
    update({ thumbnail: file, thumbnailFrom: { file: file.name }, message: "" });
  };

  const from = job.thumbnailFrom;
  const described =
    from === "offering"
      ? "Taking a frame of the video…"
      : from === "none"
        ? "No thumbnail: the service makes one from the video."
        : "frameAt" in from
          ? `The frame at ${from.frameAt.toFixed(1)} s.`
          : `${from.file}.`;

  return (
    <fieldset class="thumbnail-picker">
      <legend>Thumbnail</legend>
      <div class="thumbnail-choice">
        {preview ? (
          <img
            src={preview}
            alt={`Thumbnail of ${job.title || job.file.name}`}
            width={192}
            height={108}
            data-testid="thumbnail-preview"
          />
        ) : (
          <div class="thumbnail-none" aria-hidden="true" />
        )}
        <p aria-live="polite" data-testid="thumbnail-from">
          {described}
        </p>
      </div>
      {videoUrl && playable && (
        <video
          ref={video}
          src={videoUrl}
          controls
          muted
          preload="auto"
          playsInline
          width={320}
          aria-label={`${job.file.name}: play or scrub to the frame to use`}
        />
      )}
      {problem && <p class="muted">{problem}</p>}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => void takeShownFrame()}
          disabled={from === "offering" || !playable}
        >
          Use the frame shown
        </button>
        <label class="button secondary">
          Choose a JPEG (1920x1080)
          <input
            class="visually-hidden"
            type="file"
            accept="image/jpeg"
            onChange={(e) => void chooseJpeg(e.currentTarget.files?.[0])}
          />
        </label>
        <button
          type="button"
          class="link"
          onClick={() => update({ thumbnail: null, thumbnailFrom: "none" })}
          disabled={from === "none"}
        >
          No thumbnail
        </button>
      </div>
    </fieldset>
  );
}
