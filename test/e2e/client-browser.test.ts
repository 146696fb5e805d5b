// The typed client's build in headless Chromium, on a page of another origin than the worker (as
// a publisher's console would be): uploadVideo from a Blob, interrupted after one part and resumed
// with the same content key. Cross-origin, the part ETags can only be read because the worker
// exposes them (CORS), which is what this checks besides the flow.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrg, getContent, type Org, type Service } from "./harness/api";
import { launchChromium } from "./harness/browser";

const e2e = inject("e2e");
const service: Service = e2e;

describe.skipIf(!e2e.chromium)("typed client in headless Chromium", () => {
  let browser: Browser;
  let org: Org;

  beforeAll(async () => {
    [browser, org] = await Promise.all([launchChromium(e2e.chromium!), createOrg(service)]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("uploads a Blob in two parts, interrupted after the first and resumed", async () => {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/blank.html`);
    // The package as a page loads it: an ES module from the page's own origin.
    await page.addScriptTag({
      type: "module",
      content: `import * as client from "${e2e.staticUrl}/client/index.mjs"; window.catalogClient = client;`,
    });
    await page.waitForFunction(() => "catalogClient" in window);
    const outcome = await page.evaluate(
      async ({ staticUrl, baseUrl, credentials, key }) => {
        const { createCatalogClient } = (
          window as unknown as { catalogClient: typeof import("../../sdk/client/src/index") }
        ).catalogClient;
        const client = createCatalogClient({ baseUrl, credentials });
        // A real MP4 padded with a trailing `free` box to 5 MiB + 100 kB: two parts.
        const mp4 = new Uint8Array(
          await (await fetch(`${staticUrl}/fixtures/h264-aac-faststart.mp4`)).arrayBuffer(),
        );
        const size = 5 * 1024 * 1024 + 100_000;
        const header = new Uint8Array(8);
        new DataView(header.buffer).setUint32(0, size - mp4.byteLength);
        header.set([0x66, 0x72, 0x65, 0x65], 4);
        const file = new Blob([mp4, header, new Uint8Array(size - mp4.byteLength - 8)], {
          type: "video/mp4",
        });
        const thumbnail = await (await fetch(`${staticUrl}/fixtures/thumb-1920x1080.jpg`)).blob();

        const stop = new AbortController();
        let aborted = "";
        try {
          await client.uploadVideo(
            file,
            { contentKey: key, title: "from a browser" },
            {
              concurrency: 1,
              signal: stop.signal,
              onProgress: (p: { partsDone: number }) => p.partsDone === 1 && stop.abort(),
            },
          );
        } catch (err) {
          aborted = (err as Error).name;
        }
        const progress: number[] = [];
        const content = await client.uploadVideo(
          file,
          { contentKey: key },
          {
            thumbnail,
            onProgress: (p: { uploadedBytes: number }) => progress.push(p.uploadedBytes),
          },
        );
        return { aborted, progress, size, status: content.status, url: content.url };
      },
      {
        staticUrl: e2e.staticUrl,
        baseUrl: service.baseUrl,
        credentials: { syncCode: org.syncCode, apiKey: org.apiKey, apiSecret: org.apiSecret },
        key: `br${Date.now().toString(36).slice(-6)}`,
      },
    );
    expect(outcome.aborted).toBe("AbortError");
    expect(outcome.progress).toEqual([5 * 1024 * 1024, outcome.size]);
    expect(outcome.status).toBe("available");
    const head = await fetch(outcome.url!, { method: "HEAD" });
    expect(head.headers.get("Content-Length")).toBe(String(outcome.size));
    const contentKey = new URL(outcome.url!).pathname.split("/")[2]!;
    expect((await getContent(service, org, contentKey)).title).toBe("from a browser");
  });
});
