// Queue consumers of the worker (Cloudflare Queues; wrangler dev runs them locally in the same
// worker). Each queue is routed by name to its consumer; wrangler.toml binds the producers and
// names the consumers. A consumer acknowledges or retries each message itself.
import type { Env } from "../env";
import { consumeEvents, EVENTS_DEAD_LETTER_QUEUE, EVENTS_QUEUE, parkDeadEvents } from "./events";
import { consumeFeedRebuilds } from "./feed-rebuilds";
import {
  consumeDeadRenditionJobs,
  consumeRenditionJobs,
  RENDITIONS_DEAD_LETTER_QUEUE,
  RENDITIONS_QUEUE_NAME,
} from "./renditions";
import { WEBHOOK_QUEUE_NAME, webhookConsumer } from "./webhooks";

export type QueueConsumer = (
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
) => Promise<void>;

/** Consumers by queue name (the `queue` of [[queues.consumers]] in wrangler.toml). */
const consumers: Record<string, QueueConsumer> = {
  [EVENTS_QUEUE]: consumeEvents,
  [EVENTS_DEAD_LETTER_QUEUE]: parkDeadEvents,
  [WEBHOOK_QUEUE_NAME]: webhookConsumer,
  "feed-rebuilds": consumeFeedRebuilds,
  [RENDITIONS_QUEUE_NAME]: consumeRenditionJobs,
  [RENDITIONS_DEAD_LETTER_QUEUE]: consumeDeadRenditionJobs,
};

export async function handleQueueBatch(
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const consumer = consumers[batch.queue];
  if (!consumer) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "no consumer for this queue; messages retried",
        queue: batch.queue,
      }),
    );
    batch.retryAll();
    return;
  }
  await consumer(batch, env, ctx);
}
