// The edge cache's first level: the answers this isolate kept most recently, in its memory, so a
// hot key (an app's first page, read thousands of times a minute) is answered without asking the
// Cache API — a subrequest to the location's cache in production, a call into another process
// locally. Bounded in bytes (least recently used first out) and in time (the entry's TTL, never
// longer than MAX_AGE_MS). The keys are the Cache API's, which name every version an answer
// depends on, so memory serves nothing the Cache API would not; only entries that another
// request may delete early (a feed file rewritten while it was read) must not be kept here.
import { BoundedLru } from "../shared/bounded-lru";
import { isolateStore } from "../shared/isolate-memory";

export interface IsolateAnswer {
  body: ArrayBuffer;
  headers: [string, string][];
}

/** The memory all entries may take (an isolate has 128 MB) and the largest one kept. */
export const ISOLATE_ANSWERS_BYTES = 8 * 1024 * 1024;
export const ISOLATE_ANSWER_MAX_BYTES = 512 * 1024;
/** However long an entry's TTL: a kept answer is asked of the Cache API again after this. */
const MAX_AGE_MS = 30_000;

const answerBytes = (answer: IsolateAnswer) =>
  answer.body.byteLength + answer.headers.reduce((n, [k, v]) => n + k.length + v.length, 0);

/** The isolate's store of edge answers (edge-cache.ts), registered with its budget. */
export const isolateAnswers = (): BoundedLru<IsolateAnswer> =>
  isolateStore({
    name: "edge answers",
    bytes: ISOLATE_ANSWERS_BYTES,
    maxEntryBytes: ISOLATE_ANSWER_MAX_BYTES,
    maxAgeMs: MAX_AGE_MS,
    sizeOf: answerBytes,
  });

/** Hot answers bounded in bytes, unregistered (tests; TTLs in ms: `set(key, answer, ttlMs, now)`). */
export function unregisteredAnswers(
  capacity = ISOLATE_ANSWERS_BYTES,
  maxEntryBytes = ISOLATE_ANSWER_MAX_BYTES,
): BoundedLru<IsolateAnswer> {
  return new BoundedLru(
    { capacity, maxEntrySize: maxEntryBytes, maxAgeMs: MAX_AGE_MS },
    answerBytes,
  );
}
