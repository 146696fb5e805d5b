// hls.js publishes types for its full build only; the light build (no subtitles, no EME, no
// alternate audio) has the same API.
declare module "hls.js/light" {
  export * from "hls.js";
  export { default } from "hls.js";
}
