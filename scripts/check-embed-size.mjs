// Prints the gzipped sizes of the service's player (embed/src, built into dist/public/embed by
// npm run build) and fails over a budget. Usage: node scripts/check-embed-size.mjs (after
// npm run build). `npm run size:embed`, part of `npm run pretest`.
//   - what the iframe page loads before a play (player.js, its chunks, player.css), and what
//     the in-page script loads (evc-player.js, its chunks, player.css): hls.js light is most of it;
//   - the ad chunk, loaded only when an ad break is due (@dailymotion/vast-client and vmap);
//   - the player's own code, hls.js and the ad libraries apart: both entries bundled again with
//     those packages left out, plus the stylesheet.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { PUBLIC_DIR } from "./build-assets.mjs";
import { ROOT } from "./lib/wrangler.mjs";

export const BUDGETS = {
  iframe: 136 * 1024,
  inPage: 136 * 1024,
  ads: 24 * 1024,
  own: 20 * 1024,
};

const EMBED = join(PUBLIC_DIR, "embed");
const META = join(dirname(PUBLIC_DIR), "embed-meta.json");
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

if (!existsSync(META) || !existsSync(join(EMBED, "player.js"))) {
  console.error("embed: the player is not built; run npm run build first");
  process.exit(1);
}
const meta = JSON.parse(readFileSync(META, "utf8"));
/** Output paths relative to the embed directory. */
const rel = (path) => path.slice(path.lastIndexOf("/embed/") + "/embed/".length);
const outputs = new Map(Object.entries(meta.outputs).map(([path, o]) => [rel(path), o]));

/** An entry and every chunk it imports statically (what loads before any dynamic import). */
function closure(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of outputs.get(file)?.imports ?? [])
      if (i.kind === "import-statement") visit(rel(i.path));
  };
  visit(entry);
  return [...seen];
}
const sizeOf = (files) => files.reduce((n, f) => n + gz(readFileSync(join(EMBED, f))), 0);

const css = ["player.css"];
const adsChunk = [...outputs.entries()]
  .filter(([, o]) => Object.keys(o.inputs).some((i) => i.endsWith("embed/src/rooms/ads.ts")))
  .map(([file]) => file)
  .filter((f) => f.endsWith(".js"));

const own = await build({
  entryPoints: [join(ROOT, "embed", "src", "embed.ts"), join(ROOT, "embed", "src", "element.ts")],
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  target: "es2020",
  write: false,
  outdir: "/own",
  external: ["hls.js", "hls.js/*", "@dailymotion/*"],
  logLevel: "error",
});
const ownBytes = own.outputFiles.reduce((n, f) => n + gz(f.contents), 0) + sizeOf(css);

const rows = [
  ["iframe (player.js + chunks + css)", sizeOf([...closure("player.js"), ...css]), BUDGETS.iframe],
  [
    "in-page (evc-player.js + chunks + css)",
    sizeOf([...closure("evc-player.js"), ...css]),
    BUDGETS.inPage,
  ],
  ["ads chunk (lazy)", sizeOf(adsChunk), BUDGETS.ads],
  ["player's own code (no hls.js, no ad libraries)", ownBytes, BUDGETS.own],
];
let over = false;
for (const [name, bytes, budget] of rows) {
  const ok = bytes <= budget;
  over ||= !ok;
  console.log(
    `embed ${name}: ${bytes} B gzipped (budget ${budget} B) ${ok ? "ok" : "OVER BUDGET"}`,
  );
}
if (over) process.exit(1);
