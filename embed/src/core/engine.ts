// The video's source: hls.js light where Media Source Extensions exist, the browser's own HLS
// (Safari), the MP4 last. Rooms add hls.js settings (RoomHooks.hlsConfig) and get the instance
// (RoomHooks.engine): what live latency or request reporting need plugs in there.
import Hls, { type HlsConfig } from "hls.js/light";
import type { PlayerData } from "./types";

/** Whether the browser's own HLS plays `d` (no Media Source Extensions for hls.js). */
export const nativeHls = (video: HTMLVideoElement, d: PlayerData) =>
  !!d.hls && !Hls.isSupported() && video.canPlayType("application/vnd.apple.mpegurl") !== "";

/**
 * Attaches `d`'s source to the video; the hls.js instance when it plays it. A fatal hls.js error
 * plays the MP4 instead, after `fellBack` (the instance is destroyed by then).
 */
export function attachSource(
  video: HTMLVideoElement,
  d: PlayerData,
  config: Partial<HlsConfig>,
  fellBack: (hls: Hls) => void,
): Hls | null {
  const mp4 = () => {
    video.src = d.mp4;
  };
  if (d.hls && Hls.isSupported()) {
    const hls = new Hls({ enableWorker: false, ...config });
    hls.on(Hls.Events.ERROR, (_event, info) => {
      if (!info.fatal) return;
      hls.destroy();
      fellBack(hls);
      mp4();
    });
    hls.loadSource(d.hls);
    hls.attachMedia(video);
    return hls;
  }
  if (d.hls && nativeHls(video, d)) video.src = d.hls;
  else mp4();
  return null;
}
