// Global setup of the e2e project: once for all its files, builds the SDK and the static assets, starts the worker
// (wrangler dev, fresh state, free port) and a static server for the browser, checks the
// operator API answers, and provides their addresses to the tests (inject("e2e")). The returned
// teardown stops both and removes the temporary state.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildAssets } from "../../scripts/build-assets.mjs";
import { buildClient, DIST as CLIENT_DIST } from "../../sdk/client/scripts/build.mjs";
import { DIST } from "../../sdk/player/scripts/build.mjs";
import { createOrg } from "./harness/api";
import { CHROMIUM_PATH } from "./harness/browser";
import { startStaticServer } from "./harness/static-server";
import { ROOT, startWorker } from "./harness/worker";

export default async function setup(project: TestProject) {
  const started = Date.now();
  // The page loads what this checkout builds, never a stale bundle; the worker serves the
  // static assets (API reference, SDK bundle) of this checkout too.
  await buildAssets();
  // The client tests import sdk/client/dist, as a publisher's code would import the package.
  await buildClient({ types: false });
  const worker = await startWorker();
  let files;
  try {
    files = await startStaticServer({
      "/sdk/": DIST,
      "/pages/": join(ROOT, "test", "e2e", "pages"),
      // The typed client's build and the media fixtures, for the client in the browser.
      "/client/": CLIENT_DIST,
      "/fixtures/": join(ROOT, "test", "fixtures"),
      // hls.js as published on npm, the player the streaming test plays the service's HLS with.
      "/hlsjs/": join(ROOT, "node_modules", "hls.js", "dist"),
      // dash.js and Shaka Player as published on npm, the DASH players of the streaming test.
      "/dashjs/": join(ROOT, "node_modules", "dashjs", "dist"),
      "/shaka/": join(ROOT, "node_modules", "shaka-player", "dist"),
    });
    // Fail here, with one clear message, if the operator API does not work.
    await createOrg({ baseUrl: worker.url, adminToken: worker.adminToken });
  } catch (err) {
    await files?.close();
    await worker.stop();
    throw err;
  }
  const chromium = existsSync(CHROMIUM_PATH) ? CHROMIUM_PATH : null;
  if (!chromium) {
    console.warn(
      `e2e: no Chromium at ${CHROMIUM_PATH}: the browser tests are SKIPPED (apt-get install chromium, or set CHROMIUM_PATH)`,
    );
  }
  console.log(
    `e2e: worker ${worker.url} (state in ${worker.dir}), pages ${files.url}, ready in ${Date.now() - started} ms`,
  );
  project.provide("e2e", {
    baseUrl: worker.url,
    adminToken: worker.adminToken,
    staticUrl: files.url,
    chromium,
  });

  return async () => {
    await files.close();
    await worker.stop();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    e2e: {
      /** The worker, e.g. http://127.0.0.1:41234 */
      baseUrl: string;
      /** The operator token of this run (Authorization: Bearer ...). */
      adminToken: string;
      /** Static pages (/pages/...) and the built SDK (/sdk/...). */
      staticUrl: string;
      /** The Chromium executable, or null when there is none (browser tests skip). */
      chromium: string | null;
    };
  }
}
