// The embeddable player's script (GET /embed/{contentKey}; built into dist/public/embed/ by
// scripts/build-assets.mjs). The page puts what it plays in data attributes of its <video>
// (its CSP allows no inline script): the HLS stream through hls.js where Media Source
// Extensions exist, the browser's own HLS where it has it (Safari, iOS), else the MP4. Plays
// are reported with the player analytics SDK and the organization's sync code. Subtitles are
// <track>s of the service's copies of the WebVTT files (hls.js light reads none), offered by a
// captions menu of the page's own besides the browser's controls.
import Hls from "hls.js/light";
import { attach } from "../../sdk/player/src/index";
import { liveControls } from "./live";

const isSubtitles = (track: TextTrack) => track.kind === "subtitles" || track.kind === "captions";

/**
 * A "Captions" menu over the video, for the text tracks the element has (the page's <track>s, or
 * the stream's renditions in Safari), kept in step with the browser's own captions button.
 */
function captionsMenu(video: HTMLVideoElement): void {
  const select = document.createElement("select");
  select.id = "captions";
  select.setAttribute("aria-label", "Captions");
  select.hidden = true;
  video.after(select);
  const tracks = () => [...video.textTracks].filter(isSubtitles);
  const render = () => {
    const list = tracks();
    select.hidden = list.length === 0;
    select.replaceChildren(
      new Option("Captions off", "-1"),
      ...list.map((t, i) => new Option(t.label || t.language || `Captions ${i + 1}`, String(i))),
    );
    select.value = String(list.findIndex((t) => t.mode === "showing"));
  };
  select.addEventListener("change", () => {
    const chosen = Number(select.value);
    tracks().forEach((t, i) => {
      t.mode = i === chosen ? "showing" : "disabled";
    });
  });
  for (const type of ["addtrack", "removetrack", "change"])
    video.textTracks.addEventListener(type, render);
  // Shown while paused; while playing, on hover or focus only (player.css).
  const playing = () => video.parentElement?.classList.toggle("playing", !video.paused);
  video.addEventListener("play", playing);
  video.addEventListener("pause", playing);
  render();
}

const video = document.querySelector<HTMLVideoElement>("video[data-content-key]");
if (video) {
  const { hls, mp4, contentKey, syncCode, endpoint, hlsSubtitles } = video.dataset;
  const status = document.getElementById("status");
  const say = (text: string) => {
    if (status) status.textContent = text;
  };
  const playMp4 = () => {
    if (mp4) video.src = mp4;
  };
  if (hls && Hls.isSupported()) {
    const player = new Hls({ enableWorker: false });
    player.on(Hls.Events.ERROR, (_event, data) => {
      if (!data.fatal) return;
      player.destroy();
      say("The stream could not be played; playing the video file instead.");
      playMp4();
    });
    player.loadSource(hls);
    player.attachMedia(video);
    liveControls(video, player);
  } else if (hls && video.canPlayType("application/vnd.apple.mpegurl")) {
    // The browser lists the service's stream's subtitle renditions itself (the same files): no
    // doubles. An operator's stream keeps the page's tracks.
    if (hlsSubtitles === "yes") for (const track of video.querySelectorAll("track")) track.remove();
    video.src = hls;
    liveControls(video, null);
  } else {
    playMp4();
  }
  captionsMenu(video);
  // ?analytics=off: not reported (the console's previews); ?player_id=: reported under that id.
  const query = new URLSearchParams(location.search);
  if (contentKey && syncCode && endpoint && query.get("analytics") !== "off") {
    // No consent asked in an embed: only the counts that need none (no viewer identifiers).
    attach(video, {
      syncCode,
      contentKey,
      endpoint,
      consent: false,
      playerId: query.get("player_id") ?? "embed",
      onError: (error) => console.error("player analytics:", error),
    });
  }
}
