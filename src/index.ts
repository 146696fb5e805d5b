// Worker entry: HTTP requests go to the Hono app; queue messages to their consumers
// (src/queues: feed rebuilds); the cron trigger keeps feed files current as a safety net and
// sweeps unfinished uploads (src/domain/cron.ts).
import { createApp } from "./app";
import { backgroundDeps } from "./domain/background";
import { runCron } from "./domain/cron";
import type { Env } from "./env";
import { handleQueueBatch } from "./queues";

export { LiveStream } from "./durable/live-stream";

const app = createApp();

/** The rendition transcoder's Container (wrangler.toml [[containers]], durable_objects). */
export { TranscoderContainer } from "./transcoder-container";

export default {
  fetch: app.fetch,
  queue: handleQueueBatch,
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const started = Date.now();
    const { deps, meter, budget } = backgroundDeps(
      env,
      new Date(controller.scheduledTime),
      Date.now,
      (work) => ctx.waitUntil(work),
    );
    const report = await runCron(deps, budget);
    console.log(
      JSON.stringify({
        msg: "scheduled run",
        cron: controller.cron,
        ...report,
        duration_ms: Date.now() - started,
        d1_rows_read: meter.rowsRead,
        d1_rows_written: meter.rowsWritten,
      }),
    );
  },
} satisfies ExportedHandler<Env>;
