// Webhook endpoints of an organization (POST/GET/PATCH/DELETE /v2/webhooks), their signing
// secrets (shown once; a rotation keeps the previous one valid for a day), the delivery log and
// manual redelivery.

import type { ContentScope } from "../../db/catalog";
import {
  countEndpoints,
  deleteEndpoint,
  deliveryLog,
  type EndpointChanges,
  endpointsOf,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  loadDeliveryJob,
  restartDelivery,
  updateEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "../../db/webhooks";
import { randomAlphanumeric } from "../../shared/crypto";
import { conflict, invalid, notFound } from "../../shared/errors";
import type { WebhookDeliveryStatus, WebhookEventType } from "../../shared/webhook-events";
import type { Deps } from "../deps";
import { dispatch } from "./emit";
import { newWebhookSecret, sealSecret } from "./signing";
import { checkWebhookUrl } from "./url-policy";

export const ENDPOINTS_MAX = 20;
/** How long the secret before a rotation still signs deliveries. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function toEndpointObject(e: WebhookEndpoint) {
  return {
    id: e.endpointId,
    url: e.url,
    description: e.description,
    events: e.events,
    disabled: e.disabled,
    disabledReason: e.disabledReason,
    disabledAt: e.disabledAt,
    failingSince: e.failingSince,
    previousSecretExpiresAt: e.previousSecret ? e.previousSecretExpiresAt : null,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

function checkedUrl(deps: Pick<Deps, "config">, url: string): string {
  const check = checkWebhookUrl(url, deps.config.webhooksAllowLoopback);
  if (!check.ok) throw invalid(`url: ${check.reason}`);
  return check.url.toString();
}

async function endpointOr404(
  deps: Pick<Deps, "db">,
  scope: ContentScope,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(deps.db, scope, endpointId);
  if (!endpoint) throw notFound(`webhook ${endpointId} does not exist`);
  return endpoint;
}

export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

/** An endpoint registered with X-Service-MMI-Key belongs to the sub-organization and hears only its events. */
export async function createEndpoint(deps: Deps, scope: ContentScope, input: EndpointInput) {
  const { organizationId, subOrganizationId } = scope;
  const url = checkedUrl(deps, input.url);
  if ((await countEndpoints(deps.db, organizationId)) >= ENDPOINTS_MAX)
    throw invalid(`at most ${ENDPOINTS_MAX} webhook endpoints per organization`);
  const endpointId = `ep_${randomAlphanumeric(20)}`;
  const secret = newWebhookSecret();
  const now = deps.now.toISOString();
  const endpoint = await insertEndpoint(deps.db, {
    endpointId,
    organizationId,
    subOrganizationId,
    url,
    description: input.description ?? "",
    events: [...new Set(input.events)],
    secret: await sealSecret(deps.config.signingSecret, secret, endpointId),
    createdAt: now,
    updatedAt: now,
  });
  // The only time the secret leaves the service.
  return { ...toEndpointObject(endpoint), secret };
}

export async function listEndpoints(deps: Deps, scope: ContentScope) {
  return (await endpointsOf(deps.db, scope)).map(toEndpointObject);
}

export async function showEndpoint(deps: Deps, scope: ContentScope, endpointId: string) {
  return toEndpointObject(await endpointOr404(deps, scope, endpointId));
}

export interface EndpointPatch extends Partial<EndpointInput> {
  /** true pauses the endpoint; false enables it again (and forgets its failing streak). */
  disabled?: boolean;
}

export async function changeEndpoint(
  deps: Deps,
  scope: ContentScope,
  endpointId: string,
  patch: EndpointPatch,
) {
  const endpoint = await endpointOr404(deps, scope, endpointId);
  const now = deps.now.toISOString();
  const changes: EndpointChanges = { updatedAt: now };
  if (patch.url !== undefined) changes.url = checkedUrl(deps, patch.url);
  if (patch.events !== undefined) changes.events = [...new Set(patch.events)];
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.disabled === true && !endpoint.disabled)
    Object.assign(changes, {
      disabled: true,
      disabledAt: now,
      disabledReason: "disabled by the organization",
    });
  if (patch.disabled === false)
    Object.assign(changes, {
      disabled: false,
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
    });
  return toEndpointObject((await updateEndpoint(deps.db, endpoint.id, changes))!);
}

export async function removeEndpoint(deps: Deps, scope: ContentScope, endpointId: string) {
  const endpoint = await endpointOr404(deps, scope, endpointId);
  await deleteEndpoint(deps.db, endpoint.id);
  return toEndpointObject(endpoint);
}

/** A new secret, shown once; the previous one keeps signing (beside it) for ROTATION_OVERLAP_MS. */
export async function rotateSecret(deps: Deps, scope: ContentScope, endpointId: string) {
  const endpoint = await endpointOr404(deps, scope, endpointId);
  const secret = newWebhookSecret();
  const now = deps.now.toISOString();
  const updated = await updateEndpoint(deps.db, endpoint.id, {
    secret: await sealSecret(deps.config.signingSecret, secret, endpoint.endpointId),
    previousSecret: endpoint.secret,
    previousSecretExpiresAt: new Date(deps.now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
    updatedAt: now,
  });
  return { ...toEndpointObject(updated!), secret };
}

function toDeliveryObject(d: WebhookDelivery, event: { eventId: string; eventType: string }) {
  return {
    id: d.deliveryId,
    eventId: event.eventId,
    eventType: event.eventType,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.createdAt,
    lastAttemptAt: d.lastAttemptAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt : null,
  };
}

export async function listDeliveries(
  deps: Deps,
  scope: ContentScope,
  endpointId: string,
  options: { limit: number; cursor?: string; status?: WebhookDeliveryStatus },
) {
  const endpoint = await endpointOr404(deps, scope, endpointId);
  const rows = await deliveryLog(deps.db, endpoint.id, { ...options, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  return {
    deliveries: page.map((r) => toDeliveryObject(r.delivery, r)),
    nextCursor: rows.length > options.limit ? page.at(-1)!.delivery.deliveryId : null,
  };
}

/** Sends a delivery again (same webhook-id), with a fresh day of retries. */
export async function redeliver(
  deps: Deps,
  scope: ContentScope,
  endpointId: string,
  deliveryId: string,
) {
  const endpoint = await endpointOr404(deps, scope, endpointId);
  if (endpoint.disabled)
    throw conflict(`webhook ${endpointId} is disabled; enable it first (PATCH disabled: false)`);
  const delivery = await findDelivery(deps.db, endpoint.id, deliveryId);
  if (!delivery) throw notFound(`delivery ${deliveryId} does not exist for webhook ${endpointId}`);
  const restarted = await restartDelivery(deps.db, delivery.id, deps.now.toISOString());
  await dispatch(deps, [{ deliveryId, round: restarted.round }]);
  const job = await loadDeliveryJob(deps.db, deliveryId);
  return toDeliveryObject(restarted, {
    eventId: job?.event.eventId ?? "",
    eventType: job?.event.type ?? "",
  });
}
