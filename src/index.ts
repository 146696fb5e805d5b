// Worker entry: HTTP requests go to the Hono app; the cron trigger keeps feed files current.
import { createApp } from "./app";
import { loadConfig } from "./config";
import { createDb } from "./db/client";
import { readState } from "./db/cron-state";
import { D1Meter, meterD1 } from "./db/metered-d1";
import { runFeedCron } from "./domain/feed-cron";
import type { Env } from "./env";
import { ORIGIN_STATE } from "./routes/publishing";

const app = createApp();

/** Where URLs in cron-built files point when PUBLIC_BASE_URL is not set (local development). */
const FALLBACK_ORIGIN = "http://127.0.0.1:8787";

export default {
  fetch: app.fetch,
  async scheduled(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
    const started = Date.now();
    const meter = new D1Meter();
    const db = createDb(meterD1(env.DB, meter));
    const config = loadConfig(env);
    const baseUrl = config.publicBaseUrl ?? (await readState(db, ORIGIN_STATE)) ?? FALLBACK_ORIGIN;
    const report = await runFeedCron(
      { db, bucket: env.MEDIA, origins: { baseUrl, staticUrl: config.staticUrl ?? baseUrl }, now: new Date(controller.scheduledTime), maxVideos: config.feedMaxVideos },
      config,
    );
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
