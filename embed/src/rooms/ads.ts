// Ads: VAST 2-4 and VMAP breaks, read (ad-tag.ts) and tracked by @dailymotion/vast-client and
// @dailymotion/vmap. Loaded by <evc-ads> (ad-schedule.ts) only when an ad break is due: this
// module and what it imports are a chunk of their own. Whatever fails here — a tag answering
// 404, malformed XML, a timeout, an empty VAST, a creative that does not load — ends the break:
// the player resumes the content and logs why (the spec's ad row has no error counter; VAST
// error pixels are fired).
import { VASTTracker } from "@dailymotion/vast-client";
import type { AdDetails, AdEvent } from "../../../sdk/player/src/types";
import type { BreakControl } from "../core/contract";
import { type BreakSource, pickLinear, vastClient, vastOf } from "./ad-tag";

export { loadSchedule } from "./ad-tag";

/** What the player's controls do to the ad playing now. */
export type AdBreakPlan = BreakControl;

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

/** Plays one break's ad; resolves when it is over (completed, skipped or failed). */
export async function playBreak(ctx: BreakContext): Promise<void> {
  const client = vastClient();
  const response = await vastOf(ctx.source, ctx.retag, ctx.timeoutMs, client);
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
      video,
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
