// One attempt at one delivery, as the queue consumer asks (src/queues/webhooks.ts). The queue
// message names a delivery and its round; D1 holds the state, so a message that arrives twice,
// early, or after a redelivery started a new round does no harm:
// - not pending in this round (already delivered, failed, or superseded): acknowledged, nothing sent;
// - not due yet: retried when it is;
// - held by another attempt (the lease): retried after the lease.
// Otherwise the body stored at emission is signed (Standard Webhooks) and POSTed, without
// following redirects, with a 15 s timeout. 2xx: delivered. Anything else: retried on the
// schedule below (a Retry-After of a 429/503 is respected), for a day from the start of the
// round; then failed. An endpoint whose every attempt failed for ENDPOINT_DISABLE_AFTER_MS is
// disabled, with the reason on the endpoint (GET /v2/webhooks shows it; the console's settings).

import { loadConfig } from "../../config";
import { createDb } from "../../db/client";
import {
  type DeliveryJob,
  finishAttempt,
  leaseDelivery,
  loadDeliveryJob,
  updateEndpoint,
} from "../../db/webhooks";
import type { Env } from "../../env";
import { DAY_MS } from "../../shared/dates";
import type { Deps } from "../deps";
import { resolvesPublic } from "./dns";
import type { WebhookMessage } from "./emit";
import { signatureHeader, unsealSecret } from "./signing";
import { checkWebhookUrl } from "./url-policy";

/** Wait after the n-th failed attempt, in seconds: about ×3 each time, at most 8 h (Queues allow 12 h). */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800];
/** Attempts of one round stop this long after it started (the first attempt, or a redelivery). */
export const RETRY_WINDOW_MS = 24 * 3600_000;
/** An endpoint failing (no success) this long is disabled. */
export const ENDPOINT_DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/** Queues' longest delay for a retried message. */
const QUEUE_MAX_DELAY_SECONDS = 12 * 3600;
const LEASE_MS = 60_000;
const TIMEOUT_MS = 15_000;
/** A message this early is early: it waits; within it, the attempt goes ahead. */
const EARLY_TOLERANCE_MS = 2_000;

export type DeliveryOutcome =
  | { kind: "ack"; why: string }
  | { kind: "retry"; delaySeconds: number; why: string };

export type DeliveryDeps = Pick<Deps, "db" | "config" | "now">;

/** What an attempt needs, for the queue consumer (which holds only the worker's env). */
export function deliveryDeps(env: Env, now: Date): DeliveryDeps {
  return { db: createDb(env.DB), config: loadConfig(env), now };
}

const seconds = (ms: number) =>
  Math.max(1, Math.min(QUEUE_MAX_DELAY_SECONDS, Math.ceil(ms / 1000)));

export async function attemptDelivery(
  deps: DeliveryDeps,
  message: WebhookMessage,
  send: typeof fetch = fetch,
): Promise<DeliveryOutcome> {
  const now = deps.now.getTime();
  const job = await loadDeliveryJob(deps.db, message.deliveryId);
  if (!job) return { kind: "ack", why: "gone" };
  const { delivery } = job;
  if (delivery.round !== message.round || delivery.status !== "pending")
    return { kind: "ack", why: `already ${delivery.status}` };
  const due = Date.parse(delivery.nextAttemptAt ?? delivery.roundStartedAt);
  if (due - now > EARLY_TOLERANCE_MS)
    return { kind: "retry", delaySeconds: seconds(due - now), why: "not due" };
  const leased = await leaseDelivery(
    deps.db,
    delivery.id,
    delivery.round,
    deps.now.toISOString(),
    new Date(now + LEASE_MS).toISOString(),
  );
  if (!leased)
    return { kind: "retry", delaySeconds: seconds(LEASE_MS), why: "held by another attempt" };

  const attempt = await send_(deps, job, send);
  return record(deps, { ...job, delivery: leased }, attempt);
}

type Attempt =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; permanent: boolean; retryAfterMs?: number };

async function send_(deps: DeliveryDeps, job: DeliveryJob, send: typeof fetch): Promise<Attempt> {
  const { endpoint, event } = job;
  if (endpoint.disabled)
    return { ok: false, status: null, error: "endpoint disabled", permanent: true };
  const check = checkWebhookUrl(endpoint.url, deps.config.webhooksAllowLoopback);
  if (!check.ok)
    return { ok: false, status: null, error: `url refused: ${check.reason}`, permanent: true };
  try {
    if (check.resolve) {
      const resolution = await resolvesPublic(check.url.hostname, deps.now.getTime());
      if (!resolution.ok)
        return {
          ok: false,
          status: null,
          error: `url refused: ${resolution.reason}`,
          permanent: false,
        };
    }
    const timestamp = Math.floor(deps.now.getTime() / 1000);
    const signing = deps.config.signingSecret;
    const secrets = [await unsealSecret(signing, endpoint.secret, endpoint.endpointId)];
    if (
      endpoint.previousSecret &&
      endpoint.previousSecretExpiresAt &&
      Date.parse(endpoint.previousSecretExpiresAt) > deps.now.getTime()
    ) {
      secrets.push(await unsealSecret(signing, endpoint.previousSecret, endpoint.endpointId));
    }
    const res = await send(check.url.toString(), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "edge-video-catalog-webhooks/1",
        "webhook-id": event.eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader(
          secrets,
          event.eventId,
          timestamp,
          event.payload,
        ),
      },
      body: event.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    const retryAfter = Number(res.headers.get("Retry-After"));
    return {
      ok: false,
      status: res.status,
      error:
        res.status >= 300 && res.status < 400
          ? `HTTP ${res.status} (redirects are not followed)`
          : `HTTP ${res.status}`,
      permanent: false,
      ...((res.status === 429 || res.status === 503) &&
        Number.isFinite(retryAfter) &&
        retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }),
    };
  } catch (err) {
    return {
      ok: false,
      status: null,
      error: (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 300),
      permanent: false,
    };
  }
}

async function record(
  deps: DeliveryDeps,
  job: DeliveryJob,
  attempt: Attempt,
): Promise<DeliveryOutcome> {
  const { delivery, endpoint } = job;
  const now = deps.now.getTime();
  const at = deps.now.toISOString();
  const attempts = delivery.attempts + 1;
  const common = { attempts, lastAttemptAt: at, lastStatus: attempt.status };
  if (attempt.ok) {
    await finishAttempt(deps.db, delivery.id, delivery.round, {
      ...common,
      status: "succeeded",
      lastError: null,
      nextAttemptAt: null,
    });
    if (endpoint.failingSince) await updateEndpoint(deps.db, endpoint.id, { failingSince: null });
    return { kind: "ack", why: "delivered" };
  }
  const disabled = await noteFailure(deps, job, attempt.error);
  const scheduled = RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length + 1) - 1];
  const wait =
    scheduled === undefined ? null : Math.max(scheduled * 1000, attempt.retryAfterMs ?? 0);
  const deadline = Date.parse(delivery.roundStartedAt) + RETRY_WINDOW_MS;
  if (attempt.permanent || disabled || wait === null || now + wait > deadline) {
    await finishAttempt(deps.db, delivery.id, delivery.round, {
      ...common,
      status: "failed",
      lastError: attempt.error,
      nextAttemptAt: null,
    });
    return { kind: "ack", why: `failed: ${attempt.error}` };
  }
  const next = new Date(now + wait).toISOString();
  await finishAttempt(deps.db, delivery.id, delivery.round, {
    ...common,
    lastError: attempt.error,
    nextAttemptAt: next,
  });
  return { kind: "retry", delaySeconds: seconds(wait), why: attempt.error };
}

/**
 * The endpoint's failing streak: started now if it was not failing; long enough, it disables the
 * endpoint (true: disabled now, so this delivery stops too).
 */
async function noteFailure(deps: DeliveryDeps, job: DeliveryJob, error: string): Promise<boolean> {
  const { endpoint } = job;
  if (endpoint.disabled) return false;
  const at = deps.now.toISOString();
  if (!endpoint.failingSince) {
    await updateEndpoint(deps.db, endpoint.id, { failingSince: at });
    return false;
  }
  if (deps.now.getTime() - Date.parse(endpoint.failingSince) >= ENDPOINT_DISABLE_AFTER_MS) {
    const days = Math.round(ENDPOINT_DISABLE_AFTER_MS / DAY_MS);
    await updateEndpoint(deps.db, endpoint.id, {
      disabled: true,
      disabledAt: at,
      disabledReason: `every delivery failed for ${days} days (since ${endpoint.failingSince}; last error: ${error.slice(0, 200)}); fix the receiver, then enable the endpoint again (PATCH disabled: false)`,
      updatedAt: at,
    });
    console.warn(
      JSON.stringify({
        level: "warn",
        msg: "webhook endpoint disabled",
        endpoint: endpoint.endpointId,
        organization_id: endpoint.organizationId,
      }),
    );
    return true;
  }
  return false;
}
