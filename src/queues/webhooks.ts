// Consumer of the webhook delivery queue: one attempt per message (domain/webhooks/delivery.ts
// decides), acknowledged or retried with the delay the domain asks for. Messages of a batch are
// attempted side by side; one that throws (D1 unavailable) is retried a minute later.
import { attemptDelivery, deliveryDeps } from "../domain/webhooks/delivery";
import type { WebhookMessage } from "../domain/webhooks/emit";
import type { Env } from "../env";

/** The queue of wrangler.toml's [[queues.consumers]] for webhook deliveries. */
export const WEBHOOK_QUEUE_NAME = "evc-webhook-deliveries";

function isMessage(body: unknown): body is WebhookMessage {
  const m = body as WebhookMessage | null;
  return typeof m?.deliveryId === "string" && Number.isInteger(m.round);
}

export async function webhookConsumer(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      if (!isMessage(message.body)) {
        message.ack();
        return;
      }
      try {
        const outcome = await attemptDelivery(deliveryDeps(env, new Date()), message.body);
        if (outcome.kind === "ack") message.ack();
        else message.retry({ delaySeconds: outcome.delaySeconds });
      } catch (err) {
        console.error(
          JSON.stringify({
            level: "error",
            msg: "webhook attempt failed to run; retried",
            error: String(err).slice(0, 300),
          }),
        );
        message.retry({ delaySeconds: 60 });
      }
    }),
  );
}
