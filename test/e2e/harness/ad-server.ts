// A publisher's site and an ad server in one tiny HTTP server on a free loopback port, for the
// player's browser tests: pages (given as text), VAST/VMAP documents written with this server's
// own URL, a creative (a real MP4 of test/fixtures), tracking pixels, a landing page, and /hang…
// paths that never answer. Every
// request is recorded, so a test can check which pixels the player fired.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { ROOT } from "./worker";

export interface AdServer {
  url: string;
  /** Paths (with query) requested so far, in order. */
  requests: string[];
  /** Serves `body` at `path` (a page, or a document naming {AD} for this server's URL). */
  put(path: string, body: string, type?: string): void;
  close(): Promise<void>;
}

const FIXTURES = join(ROOT, "test", "fixtures");

export function startAdServer(): Promise<AdServer> {
  const files = new Map<string, { body: string | Buffer; type: string }>();
  const requests: string[] = [];
  let url = "";
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    const pathname = new URL(path, "http://x").pathname;
    const cors = { "Access-Control-Allow-Origin": "*", "Cache-Control": "no-store" };
    const file = files.get(pathname);
    if (file) {
      const body = typeof file.body === "string" ? file.body.replaceAll("{AD}", url) : file.body;
      res.writeHead(200, { ...cors, "Content-Type": file.type }).end(body);
    } else if (pathname.startsWith("/hang")) {
      // Never answers (a tag that times out): the connection stays open until close().
    } else if (pathname.startsWith("/pixel/")) {
      res.writeHead(204, cors).end();
    } else if (pathname.startsWith("/creative/")) {
      // /creative/<fixture name>.mp4: a real MP4 (no Range support needed for a short file).
      const name = pathname.slice("/creative/".length);
      if (!/^[\w.-]+\.mp4$/.test(name)) return void res.writeHead(404, cors).end();
      try {
        const body = readFileSync(join(FIXTURES, name));
        res.writeHead(200, { ...cors, "Content-Type": "video/mp4" }).end(body);
      } catch {
        res.writeHead(404, cors).end();
      }
    } else if (pathname === "/landing") {
      res
        .writeHead(200, { "Content-Type": "text/html; charset=utf-8" })
        .end('<!doctype html><html lang="en"><title>Advertiser</title><p>Landing</p></html>');
    } else {
      res.writeHead(404, { ...cors, "Content-Type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || !address)
        return reject(new Error("ad server: no address"));
      url = `http://127.0.0.1:${address.port}`;
      resolve({
        url,
        requests,
        put(path, body, type = "text/html; charset=utf-8") {
          files.set(path, { body, type });
        },
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A VAST 3 inline linear ad: its media file, skip offset, and pixels named after `id`; its
 * click-through is this server's /landing unless `clickThrough` names another.
 */
export function vastInline(
  id: string,
  options: { media: string; duration: string; skipoffset?: string; clickThrough?: string },
): string {
  const pixel = (name: string) => `<![CDATA[{AD}/pixel/${id}/${name}]]>`;
  const tracking = [
    "start",
    "firstQuartile",
    "midpoint",
    "thirdQuartile",
    "complete",
    "skip",
    "pause",
    "resume",
    "mute",
    "unmute",
  ]
    .map((e) => `<Tracking event="${e}">${pixel(e)}</Tracking>`)
    .join("");
  return `<VAST version="3.0"><Ad id="${id}"><InLine><AdSystem version="1">e2e-ads</AdSystem><AdTitle>${id}</AdTitle><Impression>${pixel("impression")}</Impression><Error><![CDATA[{AD}/pixel/${id}/error?code=[ERRORCODE]]]></Error><Creatives><Creative id="cr-${id}"><Linear${options.skipoffset ? ` skipoffset="${options.skipoffset}"` : ""}><Duration>${options.duration}</Duration><TrackingEvents>${tracking}</TrackingEvents><VideoClicks><ClickThrough><![CDATA[${options.clickThrough ?? "{AD}/landing"}]]></ClickThrough><ClickTracking>${pixel("click")}</ClickTracking></VideoClicks><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="160" height="90"><![CDATA[${options.media}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
}

/** A VMAP: a preroll given inline and midrolls by their VAST tag URL. */
export function vmap(preroll: string, midrolls: { offset: string; tag: string }[]): string {
  const breaks = [
    `<vmap:AdBreak timeOffset="start" breakType="linear" breakId="preroll"><vmap:AdSource id="pre" allowMultipleAds="false" followRedirects="true"><vmap:VASTAdData>${preroll}</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>`,
    ...midrolls.map(
      (m, n) =>
        `<vmap:AdBreak timeOffset="${m.offset}" breakType="linear" breakId="mid${n}"><vmap:AdSource id="mid${n}" allowMultipleAds="false" followRedirects="true"><vmap:AdTagURI templateType="vast3"><![CDATA[${m.tag}]]></vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>`,
    ),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?><vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">${breaks.join("")}</vmap:VMAP>`;
}
