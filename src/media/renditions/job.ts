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
