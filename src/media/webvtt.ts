// A publisher's WebVTT file, read by the service so players get it from the service's own
// origin (the embed's CSP stays 'self'; the publisher's host needs no CORS). Bounded: a size, a
// time limit, a content type that can be WebVTT, and the signature the W3C WebVTT spec requires
// (the file starts with "WEBVTT", after an optional byte order mark).
import { readAtMost } from "../shared/bounded-read";

/** A subtitle file the service will not pass on; the message says why (for the answer). */
export class WebVttError extends Error {}

export interface WebVttLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** A long film's subtitles are a few hundred KB; anything far larger is not a subtitle file. */
export const WEBVTT_LIMITS: WebVttLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 10_000 };

/**
 * Types a host may give a .vtt file: its own, and what storage services default to for an
 * extension they do not know. Anything else (an HTML error or login page, an image) is refused.
 */
const ACCEPTED_TYPES = new Set([
  "text/vtt",
  "text/plain",
  "application/octet-stream",
  "binary/octet-stream",
]);

const SIGNATURE = /^\uFEFF?WEBVTT(?:[ \t\r\n]|$)/;

/** Reads at most `maxBytes` of a body; more is an error (the rest is not read). */
async function boundedText(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const bytes = await readAtMost(body, maxBytes);
  if (bytes === null) throw new WebVttError(`the subtitle file is larger than ${maxBytes} bytes`);
  // WebVTT is UTF-8 by definition; an invalid sequence becomes U+FFFD, as a browser reads it.
  return new TextDecoder().decode(bytes);
}

/** Why the service will not fetch `url` itself (the webhooks' address policy), or null. */
export type UrlPolicy = (url: URL) => Promise<string | null>;

/** The most redirects followed, each checked against the policy. */
const MAX_REDIRECTS = 5;

/**
 * The WebVTT text at `url`, or a WebVttError naming what is wrong (an address the policy
 * refuses, at the start or after a redirect; unreachable, not 2xx, too large, too slow, not
 * WebVTT). `send` is the platform's fetch.
 */
export async function readWebVtt(
  url: string,
  allowed: UrlPolicy,
  send: typeof fetch = fetch,
  limits: WebVttLimits = WEBVTT_LIMITS,
): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    let res: Response | null = null;
    let at = new URL(url);
    for (let hop = 0; res === null; hop++) {
      const refusal = await allowed(at);
      if (refusal)
        throw new WebVttError(
          `${hop === 0 ? "the subtitle file's URL" : "a redirect of the subtitle file"} is refused: ${refusal}`,
        );
      let answer: Response;
      try {
        answer = await send(at.toString(), { signal: controller.signal, redirect: "manual" });
      } catch {
        throw new WebVttError(
          controller.signal.aborted
            ? `the subtitle file did not arrive within ${limits.timeoutMs / 1000} s`
            : "the subtitle file could not be fetched",
        );
      }
      const location = answer.headers.get("Location");
      if (answer.status < 300 || answer.status > 399 || location === null) {
        res = answer;
        break;
      }
      await answer.body?.cancel();
      if (hop === MAX_REDIRECTS)
        throw new WebVttError(`the subtitle file is more than ${MAX_REDIRECTS} redirects away`);
      try {
        at = new URL(location, at);
      } catch {
        throw new WebVttError("a redirect of the subtitle file names no URL");
      }
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new WebVttError(`the subtitle file's host answered ${res.status}`);
    }
    const type = (res.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type && !ACCEPTED_TYPES.has(type)) {
      await res.body?.cancel();
      throw new WebVttError(`the subtitle file is ${type}, not WebVTT (text/vtt)`);
    }
    const length = Number(res.headers.get("Content-Length") ?? Number.NaN);
    if (length > limits.maxBytes) {
      await res.body?.cancel();
      throw new WebVttError(`the subtitle file is larger than ${limits.maxBytes} bytes`);
    }
    let text: string;
    try {
      text = res.body ? await boundedText(res.body, limits.maxBytes) : "";
    } catch (err) {
      if (err instanceof WebVttError) throw err;
      throw new WebVttError(
        controller.signal.aborted
          ? `the subtitle file did not arrive within ${limits.timeoutMs / 1000} s`
          : "the subtitle file could not be read",
      );
    }
    if (!SIGNATURE.test(text))
      throw new WebVttError("the subtitle file is not WebVTT (it does not start with WEBVTT)");
    return text;
  } finally {
    clearTimeout(timer);
  }
}
