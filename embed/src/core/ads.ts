// Ads: VAST 2-4 and VMAP, parsed and tracked by @dailymotion/vast-client and @dailymotion/vmap
// (no XML code of our own beyond telling the two apart). Loaded by the player only when an ad
// break is due (a chunk of its own). Whatever fails here — a tag answering 404, malformed XML, a
// timeout, an empty VAST, a creative that does not load — ends the break: the player resumes the
// content and logs why (the spec's ad row has no error counter; VAST error pixels are fired).
import { VASTClient, VASTParser, VASTTracker } from "@dailymotion/vast-client";
import VMAP from "@dailymotion/vmap";
import type { AdDetails, AdEvent } from "../../../sdk/player/src/types";

/** One ad break: where its VAST comes from and when it plays (seconds; 0 = preroll). */
export interface BreakSource {
  id: string;
  offset: number;
  /** A VAST document in hand (the tag's own answer, or a VMAP's VASTAdData). */
  vast?: Document | Element;
  /** A VAST tag to fetch (a VMAP's AdTagURI). */
  uri?: string;
  /** Fetch the player's tag again, with fresh macros (midrolls of a plain VAST tag). */
  retag?: boolean;
}

export interface Schedule {
  breaks: BreakSource[];
}

/** What the player's controls do to the ad playing now. */
export interface AdBreakPlan {
  togglePause(): void;
  setMuted(muted: boolean): void;
}

export interface BreakContext {
  source: BreakSource;
  retag(): string | null;
  position: "preroll" | "midroll";
  video: HTMLVideoElement;
  label: HTMLElement;
  skip: HTMLButtonElement;
  click: HTMLButtonElement;
  muted: boolean;
  autoplay: boolean;
  timeoutMs: number;
  report(name: AdEvent, details: AdDetails): void;
  warn(message: string, error?: unknown): void;
  onPlan(plan: AdBreakPlan): void;
  /** Tells screen readers (the player's status line). */
  announce(text: string): void;
  onMuted(muted: boolean): void;
  /** Aborted when the break must end now (another video is loaded): nothing of it outlives it. */
  signal: AbortSignal;
}

/** An advertiser's page the player may open: an absolute http(s) URL, nothing else. */
export function webPage(url: unknown): string | null {
  if (typeof url !== "string") return null;
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export type AdsModule = typeof import("./ads");

async function fetchXml(url: string, timeoutMs: number): Promise<Document> {
  const res = await fetch(url, { credentials: "omit", signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`the ad tag answered ${res.status}`);
  const doc = new DOMParser().parseFromString(await res.text(), "text/xml");
  if (doc.getElementsByTagName("parsererror").length > 0 || !doc.documentElement)
    throw new Error("the ad tag's answer is not well-formed XML");
  return doc;
}

/** VMAP timeOffset: start, end, HH:MM:SS(.mmm), or n% (of `duration`). */
export function offsetOf(value: string | null): number | null {
  if (!value || value === "start") return 0;
  const hms = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value);
  if (hms) return Number(hms[1]) * 3600 + Number(hms[2]) * 60 + Number(hms[3]);
  // end, percentages, positions: not supported (the spec's positions are preroll and midroll).
  return null;
}

/**
 * Reads the player's tag: a VMAP gives its breaks; a VAST is the preroll, and each of the
 * configuration's midroll offsets asks the tag again.
 */
export async function loadSchedule(
  tagUrl: string,
  midrolls: number[],
  timeoutMs: number,
): Promise<Schedule> {
  const doc = await fetchXml(tagUrl, timeoutMs);
  if (doc.documentElement.localName === "VMAP") {
    const vmap = new VMAP(doc);
    const breaks: BreakSource[] = [];
    for (const [n, b] of vmap.adBreaks.entries()) {
      const offset = offsetOf(b.timeOffset);
      if (offset === null || (b.breakType && !b.breakType.includes("linear"))) continue;
      const id = offset === 0 ? "preroll" : `vmap-${n}`;
      if (breaks.some((x) => x.id === id)) continue;
      breaks.push({
        id,
        offset,
        vast: b.adSource?.vastAdData ?? undefined,
        uri: b.adSource?.adTagURI?.uri ?? undefined,
      });
    }
    return { breaks };
  }
  if (doc.documentElement.localName !== "VAST")
    throw new Error(
      `the ad tag's answer is neither VAST nor VMAP (<${doc.documentElement.localName}>)`,
    );
  return {
    breaks: [
      { id: "preroll", offset: 0, vast: doc },
      ...midrolls
        .filter((s) => Number.isFinite(s) && s > 0)
        .map((s) => ({ id: `midroll-${s}`, offset: s, retag: true })),
    ],
  };
}

type Any = any;

/** The first linear creative with a media file this browser plays. */
function pickLinear(response: Any, video: HTMLVideoElement) {
  for (const ad of response?.ads ?? []) {
    for (const creative of ad.creatives ?? []) {
      if (creative.type !== "linear") continue;
      const files: Any[] = creative.mediaFiles ?? [];
      const file = files.find(
        (f) => f.fileURL && (!f.mimeType || video.canPlayType(f.mimeType) !== ""),
      );
      if (file) return { ad, creative, file };
    }
  }
  return null;
}

async function vastOf(ctx: BreakContext, client: Any): Promise<Any> {
  const { source } = ctx;
  const options = { timeout: ctx.timeoutMs, withCredentials: false };
  if (source.vast) {
    const doc =
      source.vast instanceof Document
        ? source.vast
        : (() => {
            const d = document.implementation.createDocument(null, null, null);
            d.appendChild(d.importNode(source.vast, true));
            return d;
          })();
    return new VASTParser().parseVAST(doc, options);
  }
  const url = source.uri ?? (source.retag ? ctx.retag() : null);
  if (!url) return null;
  return client.get(url, options);
}

/** Plays one break's ad; resolves when it is over (completed, skipped or failed). */
export async function playBreak(ctx: BreakContext): Promise<void> {
  const client = new VASTClient(0, 0, memoryStorage() as never);
  const response = await vastOf(ctx, client);
  if (ctx.signal.aborted) return;
  const picked = pickLinear(response, ctx.video);
  if (!picked) {
    ctx.warn(`the ${ctx.position} has no playable linear ad (empty VAST)`);
    return;
  }
  const { ad, creative, file } = picked;
  const details: AdDetails = {
    position: ctx.position,
    system: (typeof ad.system === "string" ? ad.system : ad.system?.value) || undefined,
    creative: creative.id || creative.adId || ad.id || undefined,
  };
  const tracker = new VASTTracker(client, ad, creative, null, ctx.muted);
  const { video, label, skip, click } = ctx;
  const report = (name: AdEvent) => ctx.report(name, details);
  const skipDelay: number | null =
    typeof creative.skipDelay === "number" && creative.skipDelay >= 0 ? creative.skipDelay : null;

  return new Promise<void>((resolve) => {
    let impression = false;
    let finished = false;
    const quartiles = new Set<number>();
    const cleanups: (() => void)[] = [];
    const on = <T extends EventTarget>(target: T, type: string, fn: EventListener) => {
      target.addEventListener(type, fn);
      cleanups.push(() => target.removeEventListener(type, fn));
    };
    const finish = (why?: { error: unknown; code: string }) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      for (const c of cleanups) c();
      skip.hidden = true;
      video.pause();
      if (why) {
        ctx.warn(`the ${ctx.position} failed; the content goes on`, why.error);
        tracker.errorWithCode(why.code);
      }
      resolve();
    };
    // A creative that never starts (nothing loads, no error either) ends the break.
    const timer = setTimeout(() => {
      if (!impression)
        finish({ error: new Error("the creative did not start in time"), code: "402" });
    }, ctx.timeoutMs);

    let skippable = false;
    const render = () => {
      const left = Math.max(0, Math.ceil((video.duration || 0) - video.currentTime));
      label.textContent = `Ad · ${left} s`;
      if (skipDelay === null) return;
      skip.hidden = false;
      const wait = Math.ceil(skipDelay - video.currentTime);
      skip.disabled = wait > 0;
      if (!skip.disabled && !skippable) {
        skippable = true;
        ctx.announce("Advertisement: you can skip it now");
      }
      skip.textContent = wait > 0 ? `Skip ad in ${wait} s` : "Skip ad";
    };

    on(video, "playing", () => {
      if (impression) return;
      impression = true;
      tracker.trackImpression();
      report("impression");
      report(video.muted ? "played_muted" : "played_unmuted");
      if (ctx.autoplay) report("autoplayed");
    });
    on(video, "loadedmetadata", () => tracker.setDuration(video.duration));
    on(video, "timeupdate", () => {
      render();
      if (!impression) return;
      tracker.setProgress(video.currentTime);
      const d = video.duration;
      if (!(d > 0)) return;
      for (const q of [25, 50, 75] as const) {
        if (!quartiles.has(q) && video.currentTime >= (d * q) / 100) {
          quartiles.add(q);
          report(String(q) as AdEvent);
        }
      }
    });
    on(video, "ended", () => {
      tracker.complete();
      for (const q of [25, 50, 75] as const)
        if (!quartiles.has(q)) {
          quartiles.add(q);
          report(String(q) as AdEvent);
        }
      report("100");
      report("done");
      finish();
    });
    on(video, "error", () =>
      finish({ error: new Error(`the creative ${file.fileURL} did not load`), code: "405" }),
    );
    on(skip, "click", () => {
      if (skip.disabled || !impression) return;
      tracker.skip();
      report("skip");
      report("done");
      finish();
    });
    // One click, one tab: the click-through vast-client resolves during this click is opened by
    // this click's handler, and only if it is a web page (never javascript:, data:, ...).
    on(click, "click", () => {
      let target: string | null = null;
      const take = (url: unknown) => {
        target = webPage(url);
      };
      tracker.on("clickthrough", take);
      tracker.click();
      tracker.off("clickthrough", take);
      if (target) window.open(target, "_blank", "noopener");
      report("clicked");
      if (!video.paused) plan.togglePause();
    });
    on(ctx.signal, "abort", () => finish());

    const plan: AdBreakPlan = {
      togglePause() {
        if (video.paused) {
          tracker.setPaused(false);
          report("resumed");
          void video.play().catch(() => {});
        } else {
          tracker.setPaused(true);
          report("paused");
          video.pause();
        }
      },
      setMuted(muted) {
        if (video.muted === muted) return;
        video.muted = muted;
        tracker.setMuted(muted);
        report(muted ? "muted" : "unmuted");
        ctx.onMuted(muted);
      },
    };
    ctx.onPlan(plan);
    // Macros may stand anywhere after the scheme: the resolved URL is checked on the click.
    click.hidden = !/^\s*https?:\/\//i.test(creative.videoClickThroughURLTemplate?.url ?? "");
    video.muted = ctx.muted;
    video.src = file.fileURL;
    render();
    void video.play().catch((error: unknown) => {
      // Autoplay with sound refused, or no source: the break ends, the content goes on.
      finish({ error, code: "400" });
    });
  });
}

/** vast-client keeps capping state in a Storage; the player keeps none across pages. */
function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => {
      map.delete(k);
    },
    setItem: (k, v) => {
      map.set(k, String(v));
    },
  };
}
