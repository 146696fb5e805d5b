// The player's layout: where each room sits in <evc-media>. Every room is a custom element of
// embed/src/rooms, defined here by its tag; a new room is its file there, a line in ROOMS and
// its place below. The order of the tree is the order the rooms hear the player's hooks in and
// the keyboard's order: the stage over the picture (the video, the live badge, the logo, the big
// play button, the items, the ad break, the related videos, the docked player's close button),
// the control bar (with the captions menu and the products button), the product bar, the status.
import { EvcAds } from "../rooms/ad-schedule";
import { EvcAnalytics } from "../rooms/analytics";
import { EvcCaptions } from "../rooms/captions";
import { EvcControls } from "../rooms/controls";
import { EvcItems } from "../rooms/items";
import { EvcLive } from "../rooms/live";
import { EvcRelated } from "../rooms/related";
import { EvcStatus } from "../rooms/status";
import { define, el } from "./room";

const ROOMS = {
  "evc-controls": EvcControls,
  "evc-captions": EvcCaptions,
  "evc-live": EvcLive,
  "evc-items": EvcItems,
  "evc-ads": EvcAds,
  "evc-related": EvcRelated,
  "evc-analytics": EvcAnalytics,
  "evc-status": EvcStatus,
};
type Rooms = typeof ROOMS;
for (const [tag, element] of Object.entries(ROOMS)) define(tag, element);

const room = <K extends keyof Rooms>(tag: K) =>
  document.createElement(tag) as InstanceType<Rooms[K]>;

/** Puts the rooms and `video` in `player`; the parts the player itself uses. */
export function layOut(player: HTMLElement, video: HTMLVideoElement) {
  const stage = el("div", { className: "evc-stage" });
  const logo = el("img", { className: "evc-logo", alt: "", hidden: true });
  const dockClose = el(
    "button",
    { className: "evc-undock", type: "button", hidden: true, textContent: "×" },
    { "aria-label": "Close the floating player" },
  );
  const controls = room("evc-controls");
  const items = room("evc-items");
  stage.append(
    video,
    room("evc-live"),
    logo,
    controls.bigPlay,
    items,
    room("evc-ads"),
    room("evc-related"),
    dockClose,
  );
  // Other rooms' controls sit in the bar between mute and fullscreen.
  controls.append(room("evc-captions"), items.toggle);
  const status = room("evc-status");
  player.append(room("evc-analytics"), stage, controls, items.bar, status);
  return { logo, dockClose, status };
}
