// Player analytics for the edge video catalog: attach() to a video element (or any PlayerSource)
// and its behaviour is reported as the spec's statistics events (POST /v2/events).
// Nothing here may throw into the page: every entry point and handler is guarded.
import { type CmcdReporter, createCmcdReporter } from "./cmcd.js";
import { html5Source } from "./html5.js";
import { createSender } from "./sender.js";
import { createTracker } from "./tracker.js";
import type {
  AdDetails,
  AdEvent,
  AttachOptions,
  EcommerceEvent,
  PlayerAnalytics,
  PlayerSource,
  Scheduler,
  StatsEvent,
  Transport,
} from "./types.js";

export type { CmcdOptions, CmcdReporter } from "./cmcd.js";
export { createCmcdReporter } from "./cmcd.js";
export { MAX_EVENTS } from "./sender.js";
export type * from "./types.js";
export { html5Source };

// Globals are looked up at call time, so fake timers installed after import still apply.
const defaultScheduler: Scheduler = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

function defaultTransport(): Transport {
  const nav = typeof navigator === "object" ? navigator : undefined;
  return {
    sendBeacon:
      typeof nav?.sendBeacon === "function" ? (url, body) => nav.sendBeacon(url, body) : undefined,
    fetch: typeof fetch === "function" ? (url, init) => fetch(url, init) : undefined,
  };
}

const noop = () => {};
const inert: PlayerAnalytics = {
  docked: noop,
  undocked: noop,
  ad: noop,
  thumbnailView: noop,
  ecommerce: noop,
  setConsent: noop,
  setContent: noop,
  flush: noop,
  detach: noop,
};

function isSource(target: unknown): target is PlayerSource {
  return (
    typeof (target as PlayerSource)?.subscribe === "function" &&
    typeof (target as PlayerSource).state === "function"
  );
}

/**
 * Starts reporting what happens in `target` (an HTMLMediaElement, or a PlayerSource for other
 * players). Returns the handle for docking, ads, ecommerce, consent and playlists.
 */
export function attach(
  target: HTMLMediaElement | PlayerSource,
  options: AttachOptions,
): PlayerAnalytics {
  const onError = (error: unknown) => {
    try {
      options?.onError?.(error);
    } catch {
      // The page's own error handler failed: nothing left to tell.
    }
  };
  const guard =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A) => {
      try {
        fn(...args);
      } catch (error) {
        onError(error);
      }
    };
  try {
    for (const name of ["syncCode", "contentKey", "endpoint"] as const) {
      if (typeof options[name] !== "string" || options[name] === "")
        throw new TypeError(`attach: ${name} is required`);
    }
    const { playerId, fingerprint, tput } = options;
    let contentKey = options.contentKey;
    let consent = options.consent === true;
    const scheduler = options.scheduler ?? defaultScheduler;
    const transport = options.transport ?? defaultTransport();
    const base = options.endpoint.replace(/\/+$/, "");
    const sync = `sync=${encodeURIComponent(options.syncCode)}`;
    const sender = createSender({
      url: `${base}/v2/events?${sync}`,
      token: options.token,
      interval: options.flushInterval ?? 5000,
      scheduler,
      transport,
      onError,
    });

    const event = (name: string): StatsEvent => {
      const e: StatsEvent = { event: name, contentKey };
      if (playerId) e.playerId = playerId;
      // Viewer-level fields only with consent (the server writes viewer rows only then, too).
      if (consent) {
        e.consent = true;
        if (fingerprint) e.fingerprint = fingerprint;
        if (tput) e.tput = tput;
      }
      return e;
    };

    const source = isSource(target) ? target : html5Source(target);
    const tracker = createTracker(
      source,
      (name) => sender.push(event(name)),
      () => scheduler.now(),
    );
    const cmcd: CmcdReporter | null = options.qoe
      ? createCmcdReporter(source, {
          url: `${base}/v2/cmcd?${sync}${playerId ? `&playerId=${encodeURIComponent(playerId)}` : ""}${options.token ? `&token=${encodeURIComponent(options.token)}` : ""}`,
          contentKey,
          scheduler,
          transport,
          onError,
        })
      : null;
    const unsubscribe = source.subscribe(
      guard((e) => {
        tracker.handle(e);
        cmcd?.handle(e);
      }),
    );
    tracker.start();

    // Leaving or hiding the page is the last reliable moment to send (beacons survive unload;
    // a hidden page may never run again, on phones especially).
    const leaving = guard(() => {
      sender.flush(true);
      cmcd?.leave(true);
    });
    const onHidden = guard(() => {
      if (document.visibilityState !== "hidden") return;
      sender.flush(true);
      cmcd?.leave(false);
    });
    const win = typeof window === "object" ? window : undefined;
    const doc = typeof document === "object" ? document : undefined;
    win?.addEventListener("pagehide", leaving);
    doc?.addEventListener("visibilitychange", onHidden);

    return {
      docked: guard(tracker.docked),
      undocked: guard(tracker.undocked),
      ad: guard((name: AdEvent, details: AdDetails = {}) => {
        const e = event(`ad_${name}`);
        if (details.position) e.adPosition = details.position;
        if (details.creative) e.adCreative = details.creative;
        if (details.system) e.adSystem = details.system;
        sender.push(e);
      }),
      thumbnailView: guard((key: string) => {
        if (typeof key !== "string" || key === "") return;
        sender.push({ ...event("thumbnail_view"), contentKey: key });
      }),
      ecommerce: guard((name: EcommerceEvent, details: { ecommerceKey?: string } = {}) => {
        const e = event(`ecommerce_${name}`);
        if (details.ecommerceKey) e.ecommerceKey = details.ecommerceKey;
        sender.push(e);
      }),
      setConsent: guard((value: boolean) => {
        consent = value === true;
      }),
      setContent: guard((key: string) => {
        if (typeof key !== "string" || key === "" || key === contentKey) return;
        contentKey = key;
        tracker.reset();
        cmcd?.setContent(key);
      }),
      flush: guard(() => {
        sender.flush();
        cmcd?.flush();
      }),
      detach: guard(() => {
        unsubscribe();
        win?.removeEventListener("pagehide", leaving);
        doc?.removeEventListener("visibilitychange", onHidden);
        // No retries after this: the beacon, as when leaving.
        sender.flush(true);
        sender.stop();
        cmcd?.leave(true);
        cmcd?.stop();
      }),
    };
  } catch (error) {
    onError(error);
    return inert;
  }
}
