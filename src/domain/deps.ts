// What the domain needs from the outside world, handed in by the caller (a request handler,
// the cron or a queue consumer): the data stores, the queue of feed rebuilds, configuration,
// the public origins, the time, and a way to run work after the answer. The domain reads no
// clock and no request of its own.
import type { Config } from "../config";
import type { Db } from "../db/client";
import type { FrameSource } from "../media/frames";
import type { SpeechEngine } from "../media/speech";
import type { RenditionsQueueMessage } from "../shared/bindings";
import type { LiveStreams } from "./live/objects";

export interface Origins {
  /** Origin of API URLs (signed upload URLs, media URLs). */
  baseUrl: string;
  /** Origin of the static feed files and thumbnails. */
  staticUrl: string;
}

/** A message of the feed-rebuilds queue: republish the organization's dirty feeds. */
export interface FeedRebuildRequest {
  organizationId: number;
  /** Also republish the organization's feed list (its path moved). */
  feedList: boolean;
}

export interface Deps {
  db: Db;
  bucket: R2Bucket;
  /** The feed-rebuilds queue (its consumer: src/queues/feed-rebuilds.ts). */
  feedRebuilds: Queue<FeedRebuildRequest>;
  config: Config;
  origins: Origins;
  now: Date;
  /** Runs work after the answer (a request's waitUntil); the cron awaits it before going on. */
  defer(work: Promise<unknown>): void;
  /**
   * Producer of the webhook delivery queue. Absent (tools, some tests): emitted events wait in
   * D1 and the cron sends them (domain/webhooks/emit.ts).
   */
  webhookQueue?: Queue;
  /** Makes thumbnails from the video (media/frames.ts); null: none here, the placeholder stays. */
  frames?: FrameSource | null;
  /**
   * The renditions queue (domain/renditions.ts), only where a transcoder is: absent, videos
   * keep their one variant.
   */
  renditionJobs?: Queue<RenditionsQueueMessage> | null;
  /**
   * The request reads its own writes (it carries a D1 bookmark): nothing an isolate kept from
   * earlier reads may answer it (catalog/listing-ids.ts), as the edge cache does not.
   */
  readsOwnWrites?: boolean;
  /** The live streams' Durable Objects (src/durable/live-stream.ts); absent in tools. */
  liveStreams?: LiveStreams;
  /**
   * The speech engine automatic captions use (media/speech.ts): Workers AI in production, the
   * local one in development and tests; null: none here.
   */
  speech?: SpeechEngine | null;
}
