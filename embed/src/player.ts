// The embeddable player's script (GET /embed/{contentKey}; built into dist/public/embed/ by
// scripts/build-assets.mjs). The page puts what it plays in data attributes of its <video>
// (its CSP allows no inline script): the HLS stream through hls.js where Media Source
// Extensions exist, the browser's own HLS where it has it (Safari, iOS), else the MP4. Plays
// are reported with the player analytics SDK and the organization's sync code.
import Hls from "hls.js/light";
import { attach } from "../../sdk/player/src/index";

const video = document.querySelector<HTMLVideoElement>("video[data-content-key]");
if (video) {
  const { hls, mp4, contentKey, syncCode, endpoint } = video.dataset;
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
  } else if (hls && video.canPlayType("application/vnd.apple.mpegurl")) {
    video.src = hls;
  } else {
    playMp4();
  }
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
