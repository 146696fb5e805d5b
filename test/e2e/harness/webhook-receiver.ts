// A webhook receiver for the tests: a tiny Node HTTP server on a free loopback port that
// verifies every delivery with the `standardwebhooks` package, as a publisher's server would.
//   POST /hooks/<name>      a delivery: recorded (headers, body, verified or why not) and answered
//                           with the next status of <name>'s script (200 once it is used up)
//   PUT  /control/<name>    {secrets: ["whsec_..."], statuses: [500, 500]}: how to verify, what to answer
//   GET  /control/<name>    {deliveries: [...]} in the order they came
//   GET  /redirect/<name>?to=<url>   302 to <url> (a host that redirects, for the service's fetches)
// Used by the e2e tests (started in the test file) and by the workers project (globalSetup
// below: the tests there run inside workerd and reach it over loopback).
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import type { TestProject } from "vitest/node";

// Loaded by Node itself, not through vite: the package's published sourcemap names files it does
// not ship, and vite's transform would warn about it on every run (nothing a reader could act on).
const { Webhook } = createRequire(import.meta.url)(
  "standardwebhooks",
) as typeof import("standardwebhooks");

export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Verified with every configured secret: the secrets that verified it. */
  verifiedWith: number[];
  /** Why verification failed with each secret that did not verify it. */
  errors: string[];
  answered: number;
}

interface Hook {
  secrets: string[];
  statuses: number[];
  deliveries: ReceivedDelivery[];
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const hooks = new Map<string, Hook>();
  const hook = (name: string) => {
    let h = hooks.get(name);
    if (!h) hooks.set(name, (h = { secrets: [], statuses: [], deliveries: [] }));
    return h;
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    const [, kind, name] = url.pathname.split("/");
    const body = await readBody(req);
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (!name) return reply(404, { error: "no hook name" });
    const h = hook(name);
    if (kind === "control" && req.method === "PUT") {
      const config = JSON.parse(body) as { secrets?: string[]; statuses?: number[] };
      if (config.secrets) h.secrets = config.secrets;
      if (config.statuses) h.statuses = config.statuses;
      return reply(200, { ok: true });
    }
    if (kind === "control" && req.method === "GET") return reply(200, { deliveries: h.deliveries });
    if (kind === "redirect" && req.method === "GET") {
      res.writeHead(302, { Location: url.searchParams.get("to") ?? "/" });
      return res.end();
    }
    if (kind === "hooks" && req.method === "POST") {
      const headers = {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      };
      const verifiedWith: number[] = [];
      const errors: string[] = [];
      h.secrets.forEach((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          verifiedWith.push(i);
        } catch (err) {
          errors.push(`secret ${i}: ${(err as Error).message}`);
        }
      });
      const answered = h.statuses.shift() ?? 200;
      h.deliveries.push({
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
        body,
        verifiedWith,
        errors,
        answered,
      });
      return reply(answered, { received: answered < 300 });
    }
    reply(404, { error: "unknown path" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("webhook receiver: no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** globalSetup of the workers project: one receiver for every file, its URL provided as "webhookReceiver". */
export default async function setup(project: TestProject) {
  const receiver = await startWebhookReceiver();
  project.provide("webhookReceiver", receiver.url);
  return () => receiver.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The webhook receiver of the workers project, e.g. http://127.0.0.1:41234 */
    webhookReceiver: string;
  }
}
