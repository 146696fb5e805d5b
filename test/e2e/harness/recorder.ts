// A recording pass-through to the worker, on its own loopback port: every request is forwarded
// unchanged and kept with its answer's status. Playwright does not report the beacons a page
// sends while it unloads (pagehide), so what a browser really sent is read here.
import { createServer, type IncomingHttpHeaders } from "node:http";

export interface Recorded {
  method: string;
  /** Path and query, e.g. /v2/events?sync=... */
  url: string;
  contentType: string | undefined;
  body: string;
  status: number;
  /** The worker's answer. */
  answer: string;
}

export interface Recorder {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

// Hop-by-hop, or recomputed by fetch for the forwarded request.
const SKIP_REQUEST = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
]);
const SKIP_RESPONSE = new Set([
  "connection",
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "keep-alive",
]);

function forwardHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SKIP_REQUEST.has(name)) continue;
    out.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return out;
}

export function startRecorder(target: string): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const method = req.method ?? "GET";
      const upstream = await fetch(`${target}${req.url}`, {
        method,
        headers: forwardHeaders(req.headers),
        body: method === "GET" || method === "HEAD" ? undefined : body,
        redirect: "manual",
      });
      const answer = Buffer.from(await upstream.arrayBuffer());
      requests.push({
        method,
        url: req.url ?? "/",
        contentType: req.headers["content-type"],
        body: body.toString("utf8"),
        status: upstream.status,
        answer: answer.toString("utf8"),
      });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!SKIP_RESPONSE.has(name)) headers[name] = value;
      });
      res.writeHead(upstream.status, headers).end(answer);
    } catch (err) {
      res.writeHead(502, { "Content-Type": "text/plain" }).end(`recorder: ${err}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || !address) return reject(new Error("recorder: no address"));
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
