// Batches events and sends them to POST /v2/events (text/plain, the sync code in the URL because
// a beacon cannot set headers). While the page stays: fetch with keepalive, whose answer is seen,
// so 429 Retry-After is honoured and a network error or 5xx is sent again. When the page goes
// away: navigator.sendBeacon first (the browser delivers it after the page is gone, but nobody
// sees its answer), fetch with keepalive when there is no beacon or the browser refuses one.
// Each batch gets an id when it is cut; a failed batch is sent again as it was (same id, same
// events, never merged with newer ones), so the service counts it once even when the first send
// reached it and only the answer was lost. Nothing here touches the DOM.
import type { Scheduler, SendResponse, StatsEvent, Transport } from "./types.js";

/** The server's limit per request (EVENTS_MAX in src/schemas/stats.ts). */
export const MAX_EVENTS = 500;
/** Keepalive requests (beacons included) share a 64 KiB in-flight quota per page. */
export const MAX_BYTES = 60_000;
/** Beyond this many waiting events the oldest are dropped (a server that stays unreachable). */
export const MAX_QUEUE = 5_000;
const MAX_BACKOFF_MS = 60_000;
const MAX_RETRY_AFTER_MS = 600_000;

export interface SenderOptions {
  url: string;
  token?: string;
  interval: number;
  scheduler: Scheduler;
  transport: Transport;
  onError: (error: unknown) => void;
}

export interface Sender {
  push(event: StatsEvent): void;
  /** Sends what waits now; `leaving`: the page is going away (a beacon first). */
  flush(leaving?: boolean): void;
  /** No more timers (a final flush() first sends what is waiting). */
  stop(): void;
}

const encoder = new TextEncoder();

interface Batch {
  id: string;
  events: StatsEvent[];
}

/**
 * A batch id: the time it was cut (9 base-36 characters of ms, as the service's message ids),
 * then 16 random base64url characters (96 bits).
 */
export function batchId(nowMs: number): string {
  const bytes = new Uint8Array(12);
  if (typeof crypto !== "undefined" && crypto.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  let id = Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, "0");
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    for (let shift = 18; shift >= 0; shift -= 6) id += B64URL[(n >> shift) & 63];
  }
  return id;
}
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

export function createSender(options: SenderOptions): Sender {
  const { url, token, interval, scheduler, transport, onError } = options;
  /** Events not in a batch yet. */
  const queue: StatsEvent[] = [];
  /** Batches that failed, oldest first: sent again as they are. */
  let failedBatches: Batch[] = [];
  let timer: unknown = null;
  let timerAt = 0;
  let blockedUntil = 0;
  let failures = 0;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    const at = Math.max(scheduler.now() + ms, blockedUntil);
    if (timer !== null) {
      if (timerAt <= at) return;
      scheduler.clearTimeout(timer);
    }
    timerAt = at;
    timer = scheduler.setTimeout(() => {
      timer = null;
      flush();
    }, at - scheduler.now());
  };

  const waiting = () => failedBatches.reduce((n, b) => n + b.events.length, queue.length);

  /** Beyond MAX_QUEUE waiting events the oldest go: whole failed batches first. */
  const trim = () => {
    while (waiting() > MAX_QUEUE)
      if (failedBatches.length > 0) failedBatches.shift();
      else queue.shift();
  };

  const requeue = (batch: Batch) => {
    failedBatches.push(batch);
    trim();
  };

  const envelope = ({ id, events }: Batch) =>
    JSON.stringify(token === undefined ? { batch: id, events } : { token, batch: id, events });

  /** Cuts the next batch: at most MAX_EVENTS events and MAX_BYTES of body. */
  const take = (): Batch => {
    const id = batchId(scheduler.now());
    let bytes = encoder.encode(envelope({ id, events: [] })).length;
    let n = 0;
    while (n < queue.length && n < MAX_EVENTS) {
      const size = encoder.encode(JSON.stringify(queue[n])).length + 1;
      if (n > 0 && bytes + size > MAX_BYTES) break;
      bytes += size;
      n++;
    }
    return { id, events: queue.splice(0, n) };
  };

  const failed = (batch: Batch, error: unknown) => {
    requeue(batch);
    failures++;
    onError(error);
    schedule(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures));
  };

  const answered = (batch: Batch, res: SendResponse) => {
    if (res.status === 429) {
      requeue(batch);
      blockedUntil =
        scheduler.now() + retryAfterMs(res.headers.get("Retry-After"), scheduler.now());
      schedule(0);
    } else if (res.status >= 500) {
      failed(batch, new Error(`POST /v2/events answered ${res.status}`));
    } else {
      failures = 0;
      // A 4xx other than 429 refuses the batch as such: sending it again would not help.
      if (res.status >= 400) onError(new Error(`POST /v2/events answered ${res.status}`));
    }
  };

  const beacon = (body: string): boolean => {
    try {
      return transport.sendBeacon?.(url, body) === true;
    } catch (error) {
      onError(error);
      return false;
    }
  };

  const send = (batch: Batch, leaving: boolean) => {
    const body = envelope(batch);
    // A beacon's answer is never seen: one that failed (a 5xx) would lose its events. Only when
    // the page goes away, or when there is nothing else, is that the better bet.
    if ((leaving || !transport.fetch) && beacon(body)) return;
    if (!transport.fetch) {
      failed(batch, new Error("no transport accepted the batch"));
      return;
    }
    let sent: Promise<SendResponse>;
    try {
      // text/plain keeps the cross-origin request simple (no preflight), as for the beacon.
      sent = transport.fetch(url, {
        method: "POST",
        body,
        keepalive: true,
        credentials: "omit",
        headers: { "Content-Type": "text/plain;charset=UTF-8" },
      });
    } catch (error) {
      failed(batch, error);
      return;
    }
    sent
      .then(
        (res) => answered(batch, res),
        (error: unknown) => failed(batch, error),
      )
      .catch(onError);
  };

  function flush(leaving = false) {
    if (timer !== null) {
      scheduler.clearTimeout(timer);
      timer = null;
    }
    if (waiting() === 0) return;
    // Retry-After is honoured even when the page is going away: those events are then lost.
    if (scheduler.now() < blockedUntil) {
      schedule(0);
      return;
    }
    // Batches are cut first: a failed send puts its batch back among the failed ones.
    const batches = failedBatches;
    failedBatches = [];
    while (queue.length > 0) batches.push(take());
    for (const batch of batches) send(batch, leaving);
  }

  return {
    push(event) {
      queue.push(event);
      trim();
      schedule(queue.length >= MAX_EVENTS ? 0 : interval);
    },
    flush,
    stop() {
      stopped = true;
      if (timer !== null) scheduler.clearTimeout(timer);
      timer = null;
    },
  };
}

/** Retry-After as seconds or an HTTP date; 30 s when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number {
  let ms = 30_000;
  if (value !== null && value.trim() !== "") {
    const seconds = Number(value);
    const date = Date.parse(value);
    if (Number.isFinite(seconds)) ms = seconds * 1000;
    else if (!Number.isNaN(date)) ms = date - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
