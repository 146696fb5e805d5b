// <evc-ads>: the ad schedule and its breaks, over the picture while one plays. The ad tag (the
// video's, else the configuration's, else the organization's) gives the schedule: a VMAP's
// breaks, or a VAST tag as the preroll and again at each midroll cue point. The preroll holds
// the content's first play; a midroll plays once the content passes its offset (breaks jumped
// over by a seek are dropped, the latest one plays). The VAST/VMAP code (ads.ts, with
// @dailymotion/vast-client and vmap) is a chunk of its own, loaded when the first break is due.
// Whatever fails ends the break and the content goes on; a break ends too when another video is
// loaded, so nothing of it (its video, its click listener) outlives the video it was for.
import { expandMacros } from "../core/macros";
import { el, Room } from "../core/room";
import type { Schedule } from "./ad-tag";
import type { AdBreakPlan } from "./ads";

/** The ad chunk (ads.ts and what it imports). */
type AdsModule = typeof import("./ads");

const AD_TIMEOUT_MS = 8000;
/** The ad video's events that change what the controls show. */
const AD_RENDERED = ["play", "pause", "volumechange", "timeupdate", "durationchange", "ended"];

const warn = (message: string, error?: unknown) => {
  console.warn(`evc-player ads: ${message}`, error ?? "");
};

export class EvcAds extends Room {
  // The countdown is visual; screen readers hear the break's start and the skip through status.
  private readonly label = el("span", { className: "evc-ad-label" }, { "aria-hidden": "true" });
  private readonly visit = el("button", {
    className: "evc-ad-click",
    type: "button",
    textContent: "Visit advertiser (opens a new tab)",
  });
  private readonly skip = el("button", { className: "evc-ad-skip", type: "button", hidden: true });
  private module: Promise<AdsModule> | null = null;
  private schedule: Promise<Schedule | null> | null = null;
  private readonly played = new Set<string>();
  /** Ends the break in progress. */
  private current: AbortController | null = null;

  protected build() {
    this.className = "evc-ad";
    this.hidden = true;
    this.append(this.label, this.visit, this.skip);
  }

  protected attach() {
    this.listen(this.player.video, "timeupdate", () => this.midroll());
    this.onRelease(() => this.current?.abort());
  }

  /** Another video: its own schedule, and the break in progress ends. */
  source() {
    this.current?.abort();
    this.schedule = null;
    this.played.clear();
  }

  async hold() {
    await this.run("preroll", "preroll");
  }

  private expand(tag: string) {
    const p = this.player;
    return expandMacros(tag, {
      contentKey: p.data.contentKey,
      pageUrl: p.options.pageUrl,
      width: p.root.clientWidth,
      height: p.root.clientHeight,
    });
  }

  private load() {
    this.module ??= import("./ads");
    return this.module;
  }

  /** The schedule of the tag (VMAP breaks, or one VAST for the preroll and each midroll). */
  private getSchedule() {
    const { ads } = this.player.data;
    const tag = ads.tagUrl;
    if (!tag) return Promise.resolve(null);
    this.schedule ??= this.load()
      .then((m) => m.loadSchedule(this.expand(tag), ads.midrolls, AD_TIMEOUT_MS))
      .catch((error: unknown) => {
        // A tag that answers 404, malformed XML, a timeout: the content plays without ads.
        warn("the ad tag failed; playing without ads", error);
        return null;
      });
    return this.schedule;
  }

  /**
   * Plays the break at `id` if the schedule has one; resolves with whether the content may go
   * on (false: the break was ended because another video came).
   */
  private async run(id: string, position: "preroll" | "midroll"): Promise<boolean> {
    const p = this.player;
    const plan = await this.getSchedule();
    const source = plan?.breaks.find((b) => b.id === id);
    if (!source || this.played.has(id)) return true;
    this.played.add(id);
    p.holding = true;
    const abort = new AbortController();
    this.current = abort;
    const ads = await this.load();
    const content = p.video;
    if (!content.paused) {
      p.quietPause = true;
      content.pause();
    }
    const video = el("video", { className: "evc-ad-video" }, { playsinline: "" });
    for (const type of AD_RENDERED) video.addEventListener(type, p.update);
    this.prepend(video);
    this.hidden = false;
    p.update();
    try {
      await ads.playBreak({
        source,
        retag: () => (p.data.ads.tagUrl ? this.expand(p.data.ads.tagUrl) : null),
        position,
        video,
        label: this.label,
        skip: this.skip,
        click: this.visit,
        muted: content.muted,
        autoplay: p.startedByPlayer,
        timeoutMs: AD_TIMEOUT_MS,
        report: (name, details) => p.analytics?.ad(name, details),
        warn,
        onPlan: (control: AdBreakPlan) => {
          p.adBreak = control;
          p.say("Advertisement");
          p.update();
        },
        announce: (text) => p.say(text),
        onMuted: (muted) => {
          content.muted = muted;
        },
        signal: abort.signal,
      });
    } catch (error) {
      warn(`the ${position} failed; the content goes on`, error);
    } finally {
      video.removeAttribute("src");
      video.load();
      video.remove();
      // A break that began meanwhile (another video's) keeps the layer and the controls.
      if (this.current === abort) {
        this.current = null;
        if (p.adBreak) p.say("");
        p.adBreak = null;
        p.holding = false;
        this.hidden = true;
      }
      p.update();
    }
    return !abort.signal.aborted;
  }

  private midroll() {
    const p = this.player;
    const content = p.video;
    if (p.adBreak || content.seeking || !p.started) return;
    void this.getSchedule().then((plan) => {
      if (!plan || p.adBreak || content.paused) return;
      const due = plan.breaks.filter(
        (b) => b.offset > 0 && b.offset <= content.currentTime && !this.played.has(b.id),
      );
      const last = due[due.length - 1];
      if (!last) return;
      // Breaks jumped over by a seek are dropped; the latest one plays.
      for (const b of due) if (b !== last) this.played.add(b.id);
      void this.run(last.id, "midroll").then((goOn) => {
        if (goOn) void content.play().catch(() => {});
      });
    });
  }
}
