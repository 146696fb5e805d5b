// Consumers of the player event queue (video-catalog-events) and of its dead-letter queue
// (video-catalog-events-dlq): the queue side only (deliveries, acknowledgements, retries, the
// log line); the rules are src/domain/stats/consume.ts's.
import { loadConfig } from "../config";
import { ingestionCeilings } from "../domain/stats/ceilings";
import {
  consumeEventMessages,
  consumerDatabase,
  parkDeadEventMessages,
} from "../domain/stats/consume";
import { judgeQoeAlerts } from "../domain/stats/qoe/alerts";
import type { Env } from "../env";
import type { Plan } from "../shared/vocabulary";

export const EVENTS_QUEUE = "video-catalog-events";
export const EVENTS_DEAD_LETTER_QUEUE = "video-catalog-events-dlq";

/** Seconds before a failed batch is delivered again (D1 briefly unavailable, or a concurrent delivery). */
const RETRY_DELAY_SECONDS = 5;

/**
 * Counts a batch (one D1 transaction per statistics shard) and acknowledges what is settled; the
 * messages of a shard whose transaction failed, and those held back by a move, are retried (a
 * shard's part counts nothing when it fails). When the catalog cannot be read, the whole batch
 * is retried. After max_retries the queue moves a message to the dead-letter queue.
 */
export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const started = Date.now();
  const { db, cost } = consumerDatabase(env.DB);
  const config = loadConfig(env);
  const limits = {
    valuesPerDay: config.dimensionValuesPerDay,
    viewerIdsPerIp: config.viewerIdsPerIpPerDay,
    newViewersPerDay: (plan: Plan) => ingestionCeilings(plan, config).newViewersPerDay,
  };
  try {
    const report = await consumeEventMessages(
      db,
      batch.messages.map((m) => ({ queueId: m.id, body: m.body })),
      limits,
      new Date(),
    );
    const retry = new Set(report.retry);
    if (retry.size === 0) batch.ackAll();
    else
      for (const m of batch.messages)
        retry.has(m.id) ? m.retry({ delaySeconds: RETRY_DELAY_SECONDS }) : m.ack();
    const { organizations, retry: _retried, failedShards, ...totals } = report;
    for (const f of failedShards) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "event batch part not counted; retried",
          shard: f.shard,
          error: f.error,
        }),
      );
    }
    console.log(
      JSON.stringify({
        msg: "events counted",
        queue: batch.queue,
        ...totals,
        retried: retry.size,
        counted: organizations.reduce((n, o) => n + o.counted, 0),
        rejected: organizations.reduce((n, o) => n + o.rejected, 0),
        folded: organizations.reduce((n, o) => n + o.folded, 0),
        viewers_folded: organizations.reduce((n, o) => n + o.viewersFolded, 0),
        organizations: organizations.length,
        ...cost(),
        duration_ms: Date.now() - started,
      }),
    );
    for (const o of organizations.filter(
      (x) => x.rejected > 0 || x.folded > 0 || x.viewersFolded > 0,
    )) {
      console.log(
        JSON.stringify({
          msg: "events rejected or folded by the consumer",
          organization: o.organizationKey,
          rejected: o.rejected,
          folded: o.folded,
          viewers_folded: o.viewersFolded,
          last_rejection: o.lastRejection,
        }),
      );
    }
    // Once the batch is settled: the alerts judge the windows of the organizations whose CMCD
    // reports were just counted (judgeQoeAlerts logs its own failures and never throws).
    const withReports = report.organizations.filter((o) => o.qoeReports > 0);
    if (withReports.length)
      await judgeQoeAlerts(
        { db, now: new Date(), webhookQueue: env.WEBHOOK_QUEUE },
        withReports.map((o) => o.organizationId),
      );
  } catch (err) {
    batch.retryAll({ delaySeconds: RETRY_DELAY_SECONDS });
    const attempts = Math.max(...batch.messages.map((m) => m.attempts));
    console.error(
      JSON.stringify({
        level: "error",
        msg: "event batch not counted; retried",
        messages: batch.messages.length,
        attempts,
        error: String(err).slice(0, 300),
        ...cost(),
      }),
    );
  }
}

/** Parks what the event queue gave up on, for an operator to replay. */
export async function parkDeadEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const { db, cost } = consumerDatabase(env.DB);
  try {
    const result = await parkDeadEventMessages(
      db,
      batch.messages.map((m) => ({ queueId: m.id, body: m.body })),
      new Date(),
    );
    batch.ackAll();
    console.error(
      JSON.stringify({ level: "error", msg: "event messages dead-lettered", ...result, ...cost() }),
    );
  } catch (err) {
    batch.retryAll({ delaySeconds: RETRY_DELAY_SECONDS });
    console.error(
      JSON.stringify({
        level: "error",
        msg: "dead letters not parked; retried",
        error: String(err).slice(0, 300),
      }),
    );
  }
}
