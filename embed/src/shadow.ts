// The in-page elements' shadow root: the player's stylesheet (beside the script) and a box to
// render into, so the page's CSS does not reach in.
const STYLESHEET = new URL("player.css", import.meta.url).href;

export function shadowBox(host: HTMLElement, className = ""): HTMLDivElement {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLESHEET;
  const box = document.createElement("div");
  box.className = className;
  host.attachShadow({ mode: "open" }).append(link, box);
  return box;
}
