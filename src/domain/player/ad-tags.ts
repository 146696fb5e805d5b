// Where an ad tag (a VAST or VMAP URL, issue 38) may point: https anywhere; http only to a
// loopback host, and only where the service already allows loopback for local development
// (WEBHOOKS_ALLOW_LOOPBACK: npm run dev, the tests). The viewer's browser fetches the tag, so
// the string is kept as given: its macros ([CACHEBUSTING], [CONTENT_KEY], [PAGE_URL],
// [PLAYER_WIDTH], [PLAYER_HEIGHT] ...) are expanded by the player.
import { invalid } from "../../shared/errors";
import { addressKind } from "../webhooks/url-policy";

export const AD_TAG_MAX = 2000;

/** The reason `raw` may not be an ad tag, or null when it may. */
export function adTagProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute https URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol === "https:") return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const loopback =
    addressKind(host) === "loopback" || host === "localhost" || host.endsWith(".localhost");
  if (url.protocol === "http:" && loopback && allowLoopback) return null;
  return "must be an https URL";
}

/** Throws a 400 naming `field` when `value` is set and may not be an ad tag. */
export function checkAdTag(
  field: string,
  value: string | null | undefined,
  allowLoopback: boolean,
) {
  if (value === null || value === undefined) return;
  const problem = adTagProblem(value, allowLoopback);
  if (problem) throw invalid(`${field}: ${problem}`);
}
