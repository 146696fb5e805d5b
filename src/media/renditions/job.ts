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

export type RenditionsQueueMessage = RenditionJob | RecordingJob;
