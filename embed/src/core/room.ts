// The base of the player's rooms (embed/src/rooms): small custom elements, one section of the
// player each, with media-chrome's lifecycle. Connected, a room builds its own parts (once) and,
// inside a player (<evc-media>), joins it: the player then calls its hooks (RoomHooks, with the
// do-nothing defaults below) and the room follows the media through listen(). Disconnected and
// not put back within the same task (a move), it releases every listener and leaves the player;
// connected again, it joins afresh. A room that holds more (a stream, an SDK) adds an onRelease.
import type Hls from "hls.js/light";
import type { HlsConfig } from "hls.js/light";
import type { PlayerCore, RoomHooks, SourceInfo } from "./contract";
import type { PlayerData } from "./types";

export const PLAYER_TAG = "evc-media";

/** Defines a custom element unless the page has that name already (a second copy of the script). */
export function define(name: string, element: CustomElementConstructor) {
  if (!customElements.get(name)) customElements.define(name, element);
}

/** An element with properties and attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { className?: string } = {},
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

export abstract class Room extends HTMLElement implements RoomHooks {
  /** The player this room is in; set when it joins (hooks are called only after that). */
  protected player!: PlayerCore;
  private built = false;
  private joined = false;
  private stops: (() => void)[] = [];

  connectedCallback() {
    if (!this.built) {
      this.built = true;
      this.build();
    }
    if (this.joined) return;
    const player = this.closest(PLAYER_TAG) as unknown as PlayerCore | null;
    if (!player) return;
    this.joined = true;
    this.player = player;
    player.join(this);
    this.attach();
  }

  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected) this.release();
    });
  }

  release() {
    if (!this.joined) return;
    this.joined = false;
    for (const stop of this.stops.splice(0)) stop();
    this.player.leave(this);
  }

  /** Its own attributes and children (a custom element's constructor may add none). */
  protected build() {}

  /** Joined a player: subscribe, through listen() and onRelease(). */
  protected attach() {}

  protected listen(target: EventTarget, type: string, listener: EventListener) {
    target.addEventListener(type, listener);
    this.onRelease(() => target.removeEventListener(type, listener));
  }

  protected onRelease(stop: () => void) {
    this.stops.push(stop);
  }

  source(_data: PlayerData, _how: SourceInfo) {}
  hlsConfig(_data: PlayerData): Partial<HlsConfig> {
    return {};
  }
  engine(_hls: Hls | null) {}
  configure(_data: PlayerData) {}
  async hold(_auto: boolean) {}
  render() {}
}
