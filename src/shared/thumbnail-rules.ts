// Where a thumbnail made from a video is taken, shared by the service (domain/content/
// frame-thumbnails.ts, through media/frames.ts) and the console, which offers the browser's frame
// at upload time: both pick the same frame.

/**
 * Where in a video its thumbnail is taken: 2 s in (past a fade from black), or 10 % into a
 * video shorter than 20 s.
 */
export function thumbnailTime(durationSeconds: number): number {
  return durationSeconds >= 20 ? 2 : durationSeconds * 0.1;
}

/**
 * A frame this small for its size is one flat colour (black): at 1920x1080 a picture compresses
 * to tens of kilobytes or more, a flat frame to a few. A flat frame is replaced by the one half
 * way through the video when that one is larger.
 */
export const FLAT_FRAME_MAX_BYTES = 16 * 1024;
