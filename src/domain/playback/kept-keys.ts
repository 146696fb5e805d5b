// An organization's imported playback keys, kept in the isolate: the signed-playback check
// (keys.ts) verifies a token against them for every segment. A write to the keys or the setting
// drops them through its effects (isolate-effects.ts), so the next check reads them again.
import { isolateStore } from "../../shared/isolate-memory";
import type { VerifyingKey } from "./tokens";

/** How long a video's rule and an organization's keys are kept (other isolates see a change within it). */
export const RULE_TTL_MS = 30_000;

/** An organization's imported keys, counted at an estimate of a few keys each. */
export const keptKeys = isolateStore<Promise<Map<string, VerifyingKey>>>({
  name: "signed-playback keys",
  bytes: 4 * 1024 * 1024,
  maxEntries: 10_000,
  maxAgeMs: RULE_TTL_MS,
  sizeOf: () => 1024,
});

/** Drops an organization's imported keys (isolate-effects.ts applies it). */
export function forgetPlaybackKeys(organizationId: number): void {
  keptKeys.delete(String(organizationId));
}
