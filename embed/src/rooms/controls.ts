// <evc-controls>: the control bar (play/pause, seek, time, mute, the controls other rooms place
// in it, fullscreen), the big play button over the picture, and the player's keys: Space or K
// play/pause, M mute, F fullscreen, ←/→ seek 5 s. Native buttons and a range input, each with an
// accessible name and aria-pressed where it toggles. It shows the player's state (render) and
// acts on the viewer's requests: on the content, or on the ad during a break.
import { el, Room } from "../core/room";

const SEEK_STEP = 5;

const format = (seconds: number) => {
  if (!Number.isFinite(seconds) || seconds < 0) return "0:00";
  const s = Math.floor(seconds);
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const mm = h > 0 ? String(m % 60).padStart(2, "0") : String(m);
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
};

const ICONS: Record<string, string> = {
  on: "M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4z",
  muted:
    "M3 9v6h4l5 5V4L7 9H3zm13.6 3 2.7-2.7-1.4-1.4-2.7 2.7-2.7-2.7-1.4 1.4 2.7 2.7-2.7 2.7 1.4 1.4 2.7-2.7 2.7 2.7 1.4-1.4z",
  full: "M4 4h6v2H6v4H4V4zm10 0h6v6h-2V6h-4V4zM4 14h2v4h4v2H4v-6zm14 0h2v6h-6v-2h4v-4z",
  exit: "M8 4h2v6H4V8h4V4zm6 0h2v4h4v2h-6V4zM4 14h6v6H8v-4H4v-2zm10 0h6v2h-4v4h-2v-6z",
};

/** A decorative icon (the button's aria-label names it). */
function setIcon(button: HTMLElement, name: keyof typeof ICONS) {
  if (button.dataset.icon === name) return;
  button.dataset.icon = name;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]!);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  button.replaceChildren(svg);
}

/** Sets a toggle button's name and pressed state. */
function toggled(button: HTMLElement, pressed: boolean, label: string) {
  button.setAttribute("aria-label", label);
  button.setAttribute("aria-pressed", String(pressed));
}

export class EvcControls extends Room {
  /** The big play button, over the picture until playback starts (the player places it). */
  readonly bigPlay = el(
    "button",
    { className: "evc-bigplay", type: "button" },
    { "aria-label": "Play" },
  );
  private readonly play = el(
    "button",
    { className: "evc-play", type: "button" },
    { "aria-label": "Play" },
  );
  private readonly seek = el(
    "input",
    { className: "evc-seek", type: "range", min: "0", max: "0", step: "1", value: "0" },
    { "aria-label": "Seek" },
  );
  private readonly time = el("span", { className: "evc-time" }, { "aria-hidden": "true" });
  private readonly mute = el(
    "button",
    { className: "evc-mute", type: "button" },
    { "aria-label": "Mute", "aria-pressed": "false" },
  );
  private readonly full = el(
    "button",
    { className: "evc-full", type: "button" },
    { "aria-label": "Fullscreen", "aria-pressed": "false" },
  );

  protected build() {
    this.className = "evc-controls";
    this.setAttribute("role", "group");
    this.setAttribute("aria-label", "Player controls");
    // What the player placed in the bar stays between mute and fullscreen.
    this.prepend(this.play, this.seek, this.time, this.mute);
    this.append(this.full);
  }

  protected attach() {
    const p = this.player;
    const togglePlay = () => this.togglePlay();
    this.listen(this.play, "click", togglePlay);
    this.listen(this.bigPlay, "click", togglePlay);
    this.listen(p.video, "click", togglePlay);
    this.listen(this.mute, "click", () => this.toggleMute());
    this.listen(this.full, "click", () => this.toggleFullscreen());
    this.listen(this.seek, "input", () => {
      if (!p.adBreak) p.video.currentTime = Number(this.seek.value);
    });
    this.listen(p.root, "keydown", (event) => this.key(event as KeyboardEvent));
  }

  private togglePlay() {
    const p = this.player;
    if (p.adBreak) p.adBreak.togglePause();
    // A break is loading: the content waits, whatever is pressed.
    else if (p.holding) return;
    // Not started: the preroll first. Paused (or ended): the viewer plays it.
    else if (!p.started || p.video.paused) void p.start(false);
    else p.video.pause();
  }

  private toggleMute() {
    const p = this.player;
    const media = p.media();
    const muted = !(media.muted || media.volume === 0);
    p.video.muted = muted;
    p.adBreak?.setMuted(muted);
  }

  private toggleFullscreen() {
    const p = this.player;
    if (p.fullscreen()) void document.exitFullscreen().catch(() => {});
    else void p.root.requestFullscreen?.().catch(() => p.say("Fullscreen is not available here."));
  }

  private key(event: KeyboardEvent) {
    const p = this.player;
    const video = p.video;
    const target = event.target as HTMLElement;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const typing = target.closest("input, select, textarea");
    const onButton = target.closest("button, a");
    const key = event.key;
    if ((key === "k" && !typing) || (key === " " && !typing && !onButton)) this.togglePlay();
    else if (key === "m" && !typing) this.toggleMute();
    else if (key === "f" && !typing) this.toggleFullscreen();
    else if ((key === "ArrowLeft" || key === "ArrowRight") && !typing && !p.adBreak)
      video.currentTime = Math.max(
        0,
        video.currentTime + (key === "ArrowLeft" ? -SEEK_STEP : SEEK_STEP),
      );
    else return;
    event.preventDefault();
  }

  render() {
    const p = this.player;
    const media = p.media();
    const video = p.video;
    const paused = media.paused;
    this.play.setAttribute("aria-label", paused ? "Play" : "Pause");
    this.play.dataset.state = paused ? "paused" : "playing";
    const scope = p.root.getRootNode() as Document | ShadowRoot;
    const hadFocus = scope.activeElement === this.bigPlay;
    this.bigPlay.hidden = p.started || !!p.adBreak;
    // The big button goes once playback starts: the keyboard stays in the player.
    if (hadFocus && this.bigPlay.hidden) this.play.focus();
    const muted = media.muted || media.volume === 0;
    toggled(this.mute, muted, muted ? "Unmute" : "Mute");
    setIcon(this.mute, muted ? "muted" : "on");
    const full = p.fullscreen();
    toggled(this.full, full, full ? "Exit fullscreen" : "Fullscreen");
    setIcon(this.full, full ? "exit" : "full");
    this.seek.disabled = !!p.adBreak;
    const d = Number.isFinite(video.duration) ? video.duration : (p.data.duration ?? 0);
    this.seek.max = String(Math.floor(d));
    this.seek.value = String(Math.floor(video.currentTime));
    this.seek.setAttribute("aria-valuetext", `${format(video.currentTime)} of ${format(d)}`);
    this.time.textContent = `${format(video.currentTime)} / ${format(d)}`;
  }
}
