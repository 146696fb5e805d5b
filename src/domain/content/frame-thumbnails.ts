// Thumbnails made from the video (spec 2.1: when thumbnailUrl is null "the service makes a
// thumbnail"): for a published video without a publisher's thumbnail, a frame a couple of
// seconds in (10 % into a short video; a later one if that frame is flat, e.g. black), fitted
// into 1920x1080, checked like an uploaded thumbnail and stored once beside the media.
//
// It is served at the service thumbnail URL the records already carry (unversioned, cached
// 60 s: the placeholder of the first seconds after E2 is not kept), after an uploaded
// thumbnail, which always wins: it is served first, and this never writes over it.
import type { Content } from "../../db/schema";
import { FLAT_FRAME_MAX_BYTES, thumbnailTime } from "../../media/frames";
import { checkThumbnail } from "../../media/jpeg";
import { frameThumbnailKey } from "../../storage/layout";
import type { Deps } from "../deps";

/** Which frame source a request or a background run has (http/deps.ts, background.ts). */
export { frameSourceOf } from "../../media/frames";

export type FrameThumbnailOutcome = "made" | "not needed" | "no frame source";

export async function makeFrameThumbnail(
  deps: Deps,
  content: Content,
): Promise<FrameThumbnailOutcome> {
  const frames = deps.frames;
  if (content.thumbnailUrl !== null || content.thumbnailUploaded) return "not needed";
  if (!frames) return "no frame source";
  const frameAt = async (seconds: number) => {
    const video = await deps.bucket.get(content.mediaKey);
    if (!video) throw new Error(`media ${content.mediaKey} is missing`);
    return frames.frame({ video: video.body, atSeconds: seconds });
  };
  const duration = content.duration ?? 0;
  let jpeg = await frameAt(thumbnailTime(duration));
  if (jpeg.length <= FLAT_FRAME_MAX_BYTES && duration > 0) {
    const later = await frameAt(duration / 2);
    if (later.length > jpeg.length) jpeg = later;
  }
  const problem = checkThumbnail(jpeg);
  if (problem)
    throw new Error(`${frames.name} made a frame that is not a valid thumbnail: ${problem}`);
  await deps.bucket.put(frameThumbnailKey(content.contentKey), jpeg, {
    httpMetadata: { contentType: "image/jpeg" },
  });
  return "made";
}
