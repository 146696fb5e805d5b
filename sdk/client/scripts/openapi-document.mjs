// The service's OpenAPI document, built from the worker's own route definitions without a
// server: src/app.ts is bundled for Node (esbuild) and asked for /openapi.json, as a request to
// the worker would. The same document `wrangler dev` serves (test/e2e/openapi.test.ts compares
// them), with a placeholder server URL.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const PLACEHOLDER_ORIGIN = "https://api.example.com";

export async function openapiDocument() {
  const bundle = await build({
    entryPoints: [join(ROOT, "src", "app.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "warning",
    // The runtime's module (the statistics database binding) has no Node counterpart; the
    // document route never touches a binding, so an empty `env` stands in for it.
    plugins: [
      {
        name: "workers-runtime-stub",
        setup(b) {
          b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({
            path: "cloudflare:workers",
            namespace: "stub",
          }));
          b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
            contents: "export const env = {};",
            loader: "js",
          }));
        },
      },
    ],
  });
  const source = bundle.outputFiles[0].text;
  const { createApp } = await import(
    `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`
  );
  // Every request opens a D1 session (src/db/sessions.ts); this one never queries it.
  const noDatabase = () => {
    throw new Error("the OpenAPI document is built without a database");
  };
  const DB = {
    withSession: () => ({ prepare: noDatabase, batch: noDatabase, getBookmark: () => null }),
  };
  const env = {
    PUBLIC_BASE_URL: PLACEHOLDER_ORIGIN,
    SIGNING_SECRET: "document-only-signing-secret",
    DB,
  };
  // The worker logs one line per request; this one is not a request anyone made.
  const log = console.log;
  console.log = () => {};
  try {
    const res = await createApp().request("/openapi.json", {}, env);
    if (!res.ok) throw new Error(`/openapi.json answered HTTP ${res.status}: ${await res.text()}`);
    return await res.json();
  } finally {
    console.log = log;
  }
}
