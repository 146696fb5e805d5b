// Playback rights, windows and geographies (docs/api.md "Playback rights"): a video whose
// organization (or itself) enforces syndication windows at playback is served only while one of
// its windows is open and covers the viewer's country. The two rules are the catalog's own
// (db/syndications.ts windowOpenAt, windowCovers), applied by SQL; this file only reads them.
import type { Db } from "../../db/client";
import { windowsAt } from "../../db/syndications";
import { alpha3 } from "../../shared/geo";
import { approximateBytes, isolateStore } from "../../shared/isolate-memory";

/**
 * A decision is kept in the isolate this long at most, never past a window's bound, and is
 * dropped at once in the isolate that writes the video's windows.
 */
export const WINDOW_DECISION_TTL_MS = 30_000;

export type WindowDecision =
  | { allowed: true }
  | { allowed: false; reason: "window_not_open" | "window_closed" | "country"; message: string };

const decisions = isolateStore<WindowDecision>({
  name: "playback window decisions",
  bytes: 2 * 1024 * 1024,
  maxEntries: 10_000,
  maxAgeMs: WINDOW_DECISION_TTL_MS,
  sizeOf: (decision) => 64 + approximateBytes(decision),
});

/**
 * May the video (its row id) be played now by a viewer in this country (alpha-2 from the
 * request; null when unknown, covered only by windows for everywhere)? A video without any
 * window is not restricted, as in its network's listings and feed files.
 */
export async function playbackWindowDecision(
  db: Db,
  contentId: number,
  countryAlpha2: string | null,
  nowMs: number,
): Promise<WindowDecision> {
  const country = alpha3(countryAlpha2);
  const key = `${contentId}:${country ?? ""}`;
  const cached = decisions.get(key, nowMs);
  if (cached) return cached;
  const now = new Date(nowMs).toISOString();
  const windows = await windowsAt(db, contentId, now, country);
  const decision = decide(windows, countryAlpha2, nowMs);
  // Kept until the next window opens or closes, so a bound takes effect on time.
  let until = nowMs + WINDOW_DECISION_TTL_MS;
  for (const w of windows) {
    for (const bound of [w.startTime, w.stopTime]) {
      const at = bound === null ? Number.NaN : Date.parse(bound);
      if (at > nowMs && at < until) until = at;
    }
  }
  decisions.set(key, decision, until - nowMs, nowMs);
  return decision;
}

/** A write changed these videos' windows: decide again (isolate-effects.ts applies it). */
export function forgetWindowDecisions(contentIds: Iterable<number>): void {
  const ids = new Set([...contentIds].map(String));
  if (ids.size === 0) return;
  decisions.deleteWhere((key) => ids.has(key.slice(0, key.indexOf(":"))));
}

function decide(
  windows: { startTime: string; stopTime: string | null; open: number; covers: number }[],
  countryAlpha2: string | null,
  nowMs: number,
): WindowDecision {
  if (windows.length === 0 || windows.some((w) => w.open === 1 && w.covers === 1)) {
    return { allowed: true };
  }
  const where = countryAlpha2 ? `country ${countryAlpha2}` : "an unknown country";
  const covering = windows.filter((w) => w.covers === 1);
  if (covering.length === 0) {
    return {
      allowed: false,
      reason: "country",
      message: `this video may not be played in ${where}: no syndication window covers it`,
    };
  }
  // Whether a window is open is the SQL rule's; which way a closed one is shut is only the message.
  const opens = covering
    .map((w) => w.startTime)
    .filter((start) => Date.parse(start) > nowMs)
    .sort()[0];
  if (opens !== undefined) {
    return {
      allowed: false,
      reason: "window_not_open",
      message: `this video's syndication window for ${where} is not open yet: it opens at ${opens}`,
    };
  }
  const closed = covering
    .map((w) => w.stopTime)
    .filter((t): t is string => t !== null)
    .sort();
  return {
    allowed: false,
    reason: "window_closed",
    message: `this video's syndication windows for ${where} are closed: the last closed at ${closed.at(-1)}`,
  };
}
