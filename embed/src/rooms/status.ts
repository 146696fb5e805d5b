// <evc-status>: the player's one line for the viewer and for screen readers (role=status):
// the ad break's announcements, a stream that fell back to the MP4, a video that could not be
// loaded. <evc-player> shows one alone when its video cannot be loaded at all.
import { Room } from "../core/room";

export class EvcStatus extends Room {
  protected build() {
    this.className = "evc-status";
    this.setAttribute("role", "status");
  }

  say(text: string) {
    this.textContent = text;
  }
}
