// The in-page player: one module script puts the service's player into any page.
//   <script type="module" src="https://SERVICE/embed/evc-player.js"></script>
//   <evc-player content-key="abc123" config="CONFIG_ID"></evc-player>
//   <evc-gallery feed="https://SERVICE/v2/feeds/FEED_ID/videos.json" player="main"></evc-gallery>
// <evc-player> renders the player into its (open) shadow root, reads GET /v2/player/{contentKey}
// from the service the script came from (or the endpoint attribute), and can do what the iframe
// cannot: dock in a corner while it plays scrolled out of view, and feed the website plugin's
// gallery (gallery-element.ts). Its attributes, events and parts: docs/player.md.
import "./gallery-element";
import type { Player } from "./core/contract";
import { enableDocking } from "./core/dock";
import { LoadError, loadVideo, tokenFromUrl } from "./core/load";
import { createPlayer } from "./core/player";
import { el } from "./core/room";
import { showUnavailable, type Unavailable } from "./rooms/status";
import { shadowBox } from "./shadow";

const SCRIPT_ORIGIN = new URL(import.meta.url).origin;

class EvcPlayer extends HTMLElement {
  /** content-key is followed: another key loads that video (not started). */
  static observedAttributes = ["content-key"];

  player: Player | null = null;
  /** Resolves with the player once its data arrived (null if it could not load). */
  ready!: Promise<Player | null>;
  private resolveReady!: (p: Player | null) => void;
  private container: HTMLDivElement | null = null;
  private opening = false;
  private settled = false;
  /** What the player's release stops besides the player (docking, the autoplay observer). */
  private stops: (() => void)[] = [];

  constructor() {
    super();
    this.renew();
  }

  /**
   * The page's own source of playback tokens (signed playback), asked for each video the player
   * loads without one: `player.tokenFor = async (contentKey) => token` (e.g. from the
   * publisher's server). Else the `token-url` attribute is asked, else no token is sent.
   */
  tokenFor: ((contentKey: string) => string | null | Promise<string | null>) | null = null;

  get endpoint(): string {
    return this.getAttribute("endpoint") ?? SCRIPT_ORIGIN;
  }

  /** A video's token: the token attribute for the element's own video, else the page's source. */
  private async tokenOf(contentKey: string): Promise<string | null> {
    const own = this.getAttribute("token");
    if (own && contentKey === this.getAttribute("content-key")) return own;
    if (this.tokenFor) return (await this.tokenFor(contentKey)) ?? null;
    const url = this.getAttribute("token-url");
    return url ? tokenFromUrl(url, location.href)(contentKey) : null;
  }

  /** A video's data with its token (the `config` attribute as it is now). */
  private async data(contentKey: string, token?: string | null) {
    const signed = token ?? (await this.tokenOf(contentKey));
    return loadVideo(this.endpoint, contentKey, this.getAttribute("config"), signed);
  }

  private renew() {
    this.settled = false;
    this.ready = new Promise((resolve) => {
      this.resolveReady = (player) => {
        this.settled = true;
        resolve(player);
      };
    });
  }

  connectedCallback() {
    this.container ??= shadowBox(this, "evc-host");
    if (!this.player && !this.opening) this.open();
  }

  /** Removed from the page (not moved within it): the player is released. */
  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected) this.release();
    });
  }

  attributeChangedCallback(_name: string, old: string | null, key: string | null) {
    // Before the first connection, connectedCallback reads the attribute.
    if (!this.container || !this.isConnected || old === key) return;
    if (this.player) {
      if (key && key !== this.player.data.contentKey) void this.show(key, null, false);
    } else if (!this.opening) this.open();
  }

  private open() {
    const key = this.getAttribute("content-key");
    if (!key) return this.fail("the content-key attribute is missing", "unavailable");
    // After a failure: a new promise for this attempt.
    if (this.settled) this.renew();
    this.opening = true;
    this.data(key)
      .then((data) => {
        this.opening = false;
        if (!this.isConnected) return;
        const player = createPlayer(this.container!, data, {
          analytics: this.getAttribute("analytics") !== "off",
          pageUrl: location.href,
          crossOrigin: true,
          tokenFor: (contentKey) => this.tokenOf(contentKey),
        });
        this.player = player;
        if (data.player.docking)
          this.stops.push(enableDocking(this, player, player.dockClose).stop);
        if (data.player.autoplay === "muted-in-view") this.autoplayInView(player);
        this.resolveReady(player);
        this.dispatchEvent(new CustomEvent("evc-ready"));
        // The attribute changed while the first video loaded.
        const now = this.getAttribute("content-key");
        if (now && now !== key) void this.show(now, null, false);
      })
      .catch((error: unknown) => {
        this.opening = false;
        this.fail(String(error), error instanceof LoadError ? error.code : "unavailable");
      });
  }

  private release() {
    for (const stop of this.stops.splice(0)) stop();
    this.player?.destroy();
    this.player = null;
    this.container?.replaceChildren();
    // Whoever waits for this player hears it is gone; a new connection makes another.
    this.resolveReady(null);
    this.renew();
  }

  /**
   * Another video in this player (the gallery's click), started at once; `token`: its playback
   * token (signed playback), else the one tokenFor or token-url gives.
   */
  async play(contentKey: string, token?: string | null) {
    await this.show(contentKey, token, true);
  }

  private async show(contentKey: string, token: string | null | undefined, start: boolean) {
    const player = await this.ready;
    if (!player) return;
    try {
      player.load(await this.data(contentKey, token), start);
    } catch (error) {
      console.error(`evc-player: ${contentKey} could not be loaded: ${String(error)}`);
    }
  }

  private autoplayInView(player: Player) {
    const observer = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (!entry?.isIntersecting || entry.intersectionRatio < 0.5) return;
        observer.disconnect();
        void player.start(true);
      },
      { threshold: [0, 0.5] },
    );
    observer.observe(this);
    this.stops.push(() => observer.disconnect());
  }

  private fail(message: string, code: Unavailable) {
    console.error(`evc-player: ${message}`);
    // The page's own words for a video that cannot be played (slot="unavailable"), else ours,
    // in the page's language (the closest lang attribute), else the browser's.
    const lang = this.closest("[lang]")?.getAttribute("lang");
    if (this.container)
      showUnavailable(
        this.container,
        code,
        [...(lang ? [lang] : []), ...navigator.languages],
        (status) => {
          const slot = el("slot", { name: "unavailable" });
          slot.append(status);
          return slot;
        },
      );
    this.resolveReady(null);
    // `code`: the service's refusal (country, site, token_expired, ...), or "unavailable".
    this.dispatchEvent(new CustomEvent("evc-error", { detail: { message, code } }));
  }
}

if (!customElements.get("evc-player")) customElements.define("evc-player", EvcPlayer);

export { EvcPlayer };
