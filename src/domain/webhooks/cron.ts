// The cron's part of webhook delivery, bounded per run and idempotent: sends the deliveries
// whose queue message is missing (emitted without a queue at hand, a failed send, or a message
// the queue lost: due for 15 minutes and untouched), and forgets events older than
// WEBHOOK_RETENTION_DAYS with their deliveries (the delivery log reaches that far back).

import { purgeEvents, undeliveredDeliveries } from "../../db/webhooks";
import { DAY_MS } from "../../shared/dates";
import type { Deps } from "../deps";
import { dispatch } from "./emit";

const BATCH = 200;
const OVERDUE_MS = 15 * 60_000;
export const WEBHOOK_RETENTION_DAYS = 30;

export async function runWebhookCron(deps: Deps) {
  const now = deps.now.getTime();
  const missing = await undeliveredDeliveries(
    deps.db,
    deps.now.toISOString(),
    new Date(now - OVERDUE_MS).toISOString(),
    BATCH,
  );
  const dispatched = await dispatch(
    deps,
    missing.map((d) => ({ deliveryId: d.deliveryId, round: d.round })),
  );
  const purged = await purgeEvents(
    deps.db,
    new Date(now - WEBHOOK_RETENTION_DAYS * DAY_MS).toISOString(),
    500,
  );
  return { dispatched, purged };
}
