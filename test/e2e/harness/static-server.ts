// A tiny static file server on a free loopback port, for what the browser loads besides the
// worker: the test pages and the built SDK. Its origin differs from the worker's on purpose
// (the SDK talks to the API cross-origin, as on a publisher's site).
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".vtt": "text/vtt; charset=utf-8",
  ".map": "application/json",
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves each `mounts` prefix ("/sdk/") from its directory; anything else is a 404. */
export function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(normalize(dir) + sep)) break;
      try {
        if (!statSync(file).isFile()) break;
      } catch {
        break;
      }
      res.writeHead(200, {
        "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
        "Cache-Control": "no-store",
      });
      createReadStream(file).pipe(res);
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || !address)
        return reject(new Error("static server: no address"));
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
