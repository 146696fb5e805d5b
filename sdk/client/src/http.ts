// Waiting and retrying, shared by the API calls and the part uploads: exponential backoff with
// full jitter, Retry-After (seconds or an HTTP date) when the service or a proxy gives one, and
// an AbortSignal that cuts every wait short.

export class AbortedError extends Error {
  override name = "AbortError";
  constructor(reason?: unknown) {
    super(reason instanceof Error ? reason.message : "the upload was aborted");
  }
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AbortedError(signal.reason);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError(signal.reason));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(signal?.reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Milliseconds a Retry-After header asks for, or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface RetryPolicy {
  /** Attempts after the first (default 5). */
  retries: number;
  /** First backoff in ms (default 500); doubles each time, at most maxDelayMs (default 30 s). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/** Backoff before retry number `attempt` (0-based): random in [0, base·2^attempt], capped (full jitter). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/** Statuses worth another try: timeouts, rate limits, server and gateway trouble. */
export const retriable = (status: number) => status === 408 || status === 429 || status >= 500;
