// The in-page player: one module script puts the service's player into any page.
//   <script type="module" src="https://SERVICE/embed/evc-player.js"></script>
//   <evc-player content-key="abc123" config="CONFIG_ID"></evc-player>
//   <evc-gallery feed="https://SERVICE/v2/feeds/FEED_ID/videos.json" player="main"></evc-gallery>
// The player renders into the element's (open) shadow root, reads GET /v2/player/{contentKey}
// from the service the script came from (or the element's endpoint attribute), and can do what
// the iframe cannot: dock in a corner while it plays scrolled out of view, and feed the website
// plugin's gallery (thumbnail_view). docs/player.md.
import { enableDocking } from "./core/dock";
import { feedEntries, renderGallery } from "./core/gallery";
import { createPlayer, type Player } from "./core/player";
import { loadVideo, tokenFromUrl } from "./core/types";

const SCRIPT = new URL(import.meta.url);
const STYLESHEET = new URL("player.css", SCRIPT).href;

class EvcPlayer extends HTMLElement {
  player: Player | null = null;
  /** Resolves with the player once its data arrived (null if it could not load). */
  ready: Promise<Player | null>;
  private resolveReady!: (p: Player | null) => void;
  private container: HTMLDivElement | null = null;

  constructor() {
    super();
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
  }

  /**
   * The page's own source of playback tokens (signed playback), asked for each video the player
   * loads without one: `player.tokenFor = async (contentKey) => token` (e.g. from the
   * publisher's server). Else the `token-url` attribute is asked, else no token is sent.
   */
  tokenFor: ((contentKey: string) => string | null | Promise<string | null>) | null = null;

  get endpoint(): string {
    return this.getAttribute("endpoint") ?? SCRIPT.origin;
  }

  /** A video's token: the token attribute for the element's own video, else the page's source. */
  private async tokenOf(contentKey: string): Promise<string | null> {
    const own = this.getAttribute("token");
    if (own && contentKey === this.getAttribute("content-key")) return own;
    if (this.tokenFor) return (await this.tokenFor(contentKey)) ?? null;
    const url = this.getAttribute("token-url");
    return url ? tokenFromUrl(url, location.href)(contentKey) : null;
  }

  connectedCallback() {
    if (this.container) return;
    const shadow = this.attachShadow({ mode: "open" });
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLESHEET;
    this.container = document.createElement("div");
    this.container.className = "evc-host";
    shadow.append(link, this.container);
    const key = this.getAttribute("content-key");
    if (!key) {
      this.fail("the content-key attribute is missing");
      return;
    }
    // token: a playback token for a video that requires signed playback (its answer and media).
    this.tokenOf(key)
      .then((token) => loadVideo(this.endpoint, key, this.getAttribute("config"), token))
      .then((data) => {
        const player = createPlayer(this.container!, data, {
          analytics: this.getAttribute("analytics") !== "off",
          pageUrl: location.href,
          crossOrigin: true,
          tokenFor: (contentKey) => this.tokenOf(contentKey),
        });
        this.player = player;
        if (data.player.docking) enableDocking(this, player, player.dockClose);
        if (data.player.autoplay === "muted-in-view") this.autoplayInView(player);
        this.resolveReady(player);
      })
      .catch((error: unknown) => this.fail(String(error)));
  }

  /**
   * Another video in this player (the gallery's click), started at once; `token`: its playback
   * token (signed playback), else the one tokenFor or token-url gives.
   */
  async play(contentKey: string, token?: string | null) {
    const player = await this.ready;
    if (!player) return;
    try {
      const signed = token ?? (await this.tokenOf(contentKey));
      player.load(
        await loadVideo(this.endpoint, contentKey, this.getAttribute("config"), signed),
        true,
      );
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
  }

  private fail(message: string) {
    console.error(`evc-player: ${message}`);
    const p = document.createElement("p");
    p.className = "evc-status";
    p.setAttribute("role", "status");
    p.textContent = "The video could not be loaded.";
    this.container?.replaceChildren(p);
    this.resolveReady(null);
  }
}

class EvcGallery extends HTMLElement {
  private started = false;

  connectedCallback() {
    if (this.started) return;
    this.started = true;
    const shadow = this.attachShadow({ mode: "open" });
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLESHEET;
    const box = document.createElement("div");
    const heading = this.getAttribute("label");
    if (heading) box.setAttribute("aria-label", heading);
    box.setAttribute("role", "region");
    shadow.append(link, box);
    const feed = this.getAttribute("feed");
    if (!feed) return;
    const target = () => {
      const id = this.getAttribute("player");
      const el = id ? document.getElementById(id) : document.querySelector("evc-player");
      return el instanceof EvcPlayer ? el : null;
    };
    fetch(feed, { credentials: "omit" })
      .then((res) => {
        if (!res.ok) throw new Error(`the feed answered ${res.status}`);
        return res.json();
      })
      .then((body) =>
        renderGallery(
          box,
          feedEntries(body),
          async () => (await target()?.ready) ?? null,
          (key) => {
            const player = target();
            player?.scrollIntoView({ block: "center" });
            void player?.play(key);
          },
        ),
      )
      .catch((error: unknown) => console.error(`evc-gallery: ${String(error)}`));
  }
}

if (!customElements.get("evc-player")) customElements.define("evc-player", EvcPlayer);
if (!customElements.get("evc-gallery")) customElements.define("evc-gallery", EvcGallery);

export { EvcGallery, EvcPlayer };
