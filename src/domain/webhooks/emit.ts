// The one place the domain says "something a publisher may want to hear about happened":
// write paths call emitWebhookEvent after their write (E1, E2's outcome, E4, E5, operator
// changes, the cron's expiry, rewritten feed files). It sits beside catalogChanged rather than
// on it: most events (created, rejected, expired, updated while uploading) change no listing,
// and a webhook concerns one organization's subscribers, not its feeds.
//
// An event is written once with one pending delivery per subscribed, enabled endpoint (an
// outbox in D1), then the deliveries' ids go to the queue; without a queue at hand, or when
// sending fails, the cron sends them (cron.ts). Nothing here fails the write that called it.

import type { ContentScope } from "../../db/catalog";
import type { Db } from "../../db/client";
import { insertEvent, listenersOf, markDispatched } from "../../db/webhooks";
import { randomAlphanumeric } from "../../shared/crypto";
import type { WebhookEventType } from "../../shared/webhook-events";
import type { Deps } from "../deps";

export type EmitDeps = Pick<Deps, "db" | "now" | "webhookQueue">;

/** What a queue message carries: which delivery, and which round of it (a redelivery starts a new one). */
export interface WebhookMessage {
  deliveryId: string;
  round: number;
}

/**
 * `scope` is whose content or feed the event is about: the organization's endpoints hear it, and
 * a sub-organization's endpoints only when it is about that sub-organization's (db/webhooks.ts#listenersOf).
 */
export async function emitWebhookEvent(
  deps: EmitDeps,
  scope: ContentScope,
  type: WebhookEventType,
  data: unknown,
): Promise<void> {
  const { organizationId } = scope;
  try {
    const endpoints = (await listenersOf(deps.db, scope)).filter(
      (e) => !e.disabled && e.events.includes(type),
    );
    if (endpoints.length === 0) return;
    const createdAt = deps.now.toISOString();
    const eventId = `msg_${randomAlphanumeric(24)}`;
    const deliveries = endpoints.map((e) => ({
      deliveryId: `dlv_${randomAlphanumeric(20)}`,
      endpointId: e.id,
    }));
    await insertEvent(
      deps.db,
      {
        eventId,
        organizationId,
        type,
        payload: JSON.stringify({ type, timestamp: createdAt, data }),
        createdAt,
      },
      deliveries,
    );
    await dispatch(
      deps,
      deliveries.map((d) => ({ deliveryId: d.deliveryId, round: 1 })),
    );
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "webhook event not recorded",
        type,
        organization_id: organizationId,
        error: String(err).slice(0, 300),
      }),
    );
  }
}

/** Sends the messages to the queue and records it; without a queue (or on failure) the cron will. */
export async function dispatch(
  deps: { db: Db; now: Date; webhookQueue?: Queue },
  messages: WebhookMessage[],
): Promise<number> {
  if (!deps.webhookQueue || messages.length === 0) return 0;
  try {
    for (let i = 0; i < messages.length; i += 100) {
      const chunk = messages.slice(i, i + 100);
      await deps.webhookQueue.sendBatch(
        chunk.map((body) => ({ body, contentType: "json" as const })),
      );
      await markDispatched(
        deps.db,
        chunk.map((m) => m.deliveryId),
        deps.now.toISOString(),
      );
    }
    return messages.length;
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "webhook deliveries not queued; the cron will",
        error: String(err).slice(0, 300),
      }),
    );
    return 0;
  }
}
