// Docking (in-page form only: a floating player cannot leave an iframe). While the content plays
// and less than half of the player's place is in the viewport, the player floats in a corner
// (video_docked); it returns when its place is half in view again, or when the viewer closes it
// (video_undocked; closing also pauses). A closed player docks again only after its place was
// seen again.
import type { Player } from "./contract";

export function enableDocking(place: HTMLElement, player: Player, close: HTMLButtonElement) {
  let docked = false;
  let placeVisible = true;
  let closed = false;
  const set = (value: boolean) => {
    if (value === docked) return;
    docked = value;
    player.root.classList.toggle("evc-docked", value);
    close.hidden = !value;
    if (value) player.analytics?.docked();
    else player.analytics?.undocked();
  };
  const decide = () => {
    if (placeVisible) closed = false;
    set(!placeVisible && !closed && player.playing());
  };
  const observer = new IntersectionObserver(
    (entries) => {
      const entry = entries[entries.length - 1];
      if (!entry) return;
      placeVisible = entry.isIntersecting && entry.intersectionRatio >= 0.5;
      decide();
    },
    { threshold: [0, 0.5] },
  );
  observer.observe(place);
  close.addEventListener("click", () => {
    closed = true;
    player.video.pause();
    set(false);
  });
  // Docked only while playing: a pause (or the end) in the corner keeps it there; a new play
  // while its place is out of view docks it.
  player.onStateChange(() => {
    if (!docked) decide();
  });
  return {
    docked: () => docked,
    stop() {
      observer.disconnect();
      set(false);
    },
  };
}
