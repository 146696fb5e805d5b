// Worker entry: HTTP requests go to the Hono app; the cron trigger keeps feed files current and
// sweeps unfinished uploads (src/domain/cron.ts).
import { createApp } from "./app";
import { loadConfig } from "./config";
import { createDb } from "./db/client";
import { D1Meter, meterD1 } from "./db/metered-d1";
import { runCron } from "./domain/cron";
import type { Env } from "./env";
import { handleQueueBatch } from "./queues";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleQueueBatch,
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const started = Date.now();
    const meter = new D1Meter();
    const db = createDb(meterD1(env.DB, meter));
    // Without PUBLIC_BASE_URL this throws: no file is published with a made-up origin.
    const config = loadConfig(env);
    const report = await runCron({
      db,
      bucket: env.MEDIA,
      config,
      origins: { baseUrl: config.publicBaseUrl, staticUrl: config.staticUrl },
      now: new Date(controller.scheduledTime),
      defer: (work) => ctx.waitUntil(work),
      webhookQueue: env.WEBHOOK_QUEUE,
    });
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
