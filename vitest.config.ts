import fs from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { transcoderResponse } from "./containers/transcoder/transcoder.mjs";
import { hasFfmpeg, rememberingFrameService } from "./scripts/lib/frame-service.mjs";
import { hasPocketsphinx, speechResponse } from "./scripts/lib/speech-service.mjs";
import LongestFirst from "./test/setup/sequencer.ts";
import { bundleWorker, dependenciesWithoutSourceMaps } from "./test/setup/worker-bundle.ts";

// Four projects, all run by `npm test` (one with `vitest run --project <name>`):
// - workers: the worker's tests, inside workerd with its real bindings (local D1, R2, KV from miniflare);
// - unit: unit tests of the worker's pure modules (src/**/*.test.ts) in Node;
// - sdk: the player SDK's unit tests in Node (pure logic, fake timers);
// - e2e: Node tests against the real worker under `wrangler dev` on a free loopback port, and
//   the SDK in headless Chromium (test/e2e/README.md).
// The worker's dependencies pre-bundled for the tests, with every entry point of theirs that
// src imports (found here, so a new import cannot be missed): each package is then one copy (a
// second copy of hono's HTTPException would make `instanceof` fail).
const BUNDLED_PACKAGES = [
  "zod",
  "@hono/zod-openapi",
  "hono",
  "drizzle-orm",
  "bowser",
  "aws4fetch",
  "@cloudflare/containers",
];
function importedEntryPoints(dir: string): string[] {
  const found = new Set<string>();
  const specifier = /from "((?:@[^/"]+\/)?[^/"]+)(\/[^"]*)?"/g;
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!/\.tsx?$/.test(file)) continue;
    for (const [, name, subpath] of fs
      .readFileSync(path.join(dir, file), "utf8")
      .matchAll(specifier)) {
      if (BUNDLED_PACKAGES.includes(name!)) found.add(name! + (subpath ?? ""));
    }
  }
  return [...found].sort();
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  const statsMigrations = await readD1Migrations(
    path.join(import.meta.dirname, "migrations-stats"),
  );
  const ffmpeg = await hasFfmpeg();
  const pocketsphinx = await hasPocketsphinx();
  // `vitest run` (npm test, CI) builds the worker once; `vitest` (watch mode) keeps rebuilding it.
  // (Vitest watches when not told `run`, outside CI, on a terminal.)
  const args = process.argv.slice(2);
  const watching =
    !args.includes("run") &&
    (args.includes("watch") ||
      args.includes("dev") ||
      (Boolean(process.stdin.isTTY) && !process.env.CI));
  const worker = await bundleWorker(
    import.meta.dirname,
    path.join(import.meta.dirname, ".wrangler", "test-worker"),
    watching,
  );
  return {
    test: {
      // The worker logs JSON lines (requests, feed rebuilds); keep test output readable (errors,
      // on stderr, still show). A root option: vitest ignores it in a project's config.
      // Vitest's default on a 2-core machine is one file at a time; a file waits on its queues,
      // timers and servers as much as it computes, so three at once keep both cores busy.
      maxWorkers: 4,
      // The usual report, then each project's time (test/setup/project-times.ts).
      reporters: ["default", "./test/setup/project-times.ts"],
      // Every project's files in one queue, longest first (test/setup/sequencer.ts).
      sequence: { sequencer: LongestFirst },
      onConsoleLog: (log: string, type: "stdout" | "stderr") =>
        !(type === "stdout" && /^\{"(method|msg)"/.test(log)),
      projects: [
        {
          plugins: [
            worker.plugin,
            dependenciesWithoutSourceMaps,
            cloudflareTest({
              // The worker built once for the run (test/setup/worker-bundle.ts), with wrangler.toml's bindings.
              main: worker.main,
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  TEST_STATS_MIGRATIONS: statsMigrations,
                  ADMIN_TOKEN: "test-admin-token",
                  SIGNING_SECRET: "test-signing-secret-0123456789",
                  // The public origin written into URLs (tests call the worker at this origin).
                  PUBLIC_BASE_URL: "https://catalog.test",
                  // R2's minimum part size, so tests can upload two real parts.
                  CHUNK_SIZE: String(5 * 1024 * 1024),
                  // Webhook endpoints on the tests' loopback receiver.
                  WEBHOOKS_ALLOW_LOOPBACK: "true",
                  // Rendition jobs of 12 s: the 40 s fixture makes several chunks per rung.
                  RENDITION_CHUNK_SECONDS: "12",
                  // Live segments: a small limit, so a test can send one over it.
                  LIVE_SEGMENT_MAX_BYTES: String(1024 * 1024),
                  // Feeds waiting for patches are due at once, so a test waiting for its files
                  // waits for the pass alone (test/feeds-patches.test.ts sets a wait itself).
                  FEED_PATCH_DELAY_SECONDS: "0",
                  // Automatic-caption jobs of 8 s: the speech fixture's 30 s make several chunks.
                  CAPTION_CHUNK_SECONDS: "8",
                },
                // The event and feed-rebuild queues as wrangler.toml has them, but batches close
                // after 50 ms instead of 2 s and 1 s, so a test waiting for its events or its
                // feed files waits little.
                queueConsumers: {
                  "video-catalog-events": {
                    maxBatchSize: 100,
                    maxBatchTimeout: 0.05,
                    maxRetries: 5,
                    deadLetterQueue: "video-catalog-events-dlq",
                  },
                  "video-catalog-events-dlq": { maxBatchSize: 100, maxBatchTimeout: 0.05 },
                  "feed-rebuilds": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 5 },
                  "video-catalog-renditions": {
                    maxBatchSize: 1,
                    maxBatchTimeout: 0.05,
                    maxRetries: 3,
                    deadLetterQueue: "video-catalog-renditions-dlq",
                  },
                  "video-catalog-renditions-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
                },
                // Thumbnails from the video: the local ffmpeg stand-in for Media Transformations
                // (without ffmpeg, no binding: the placeholder stays and those tests skip).
                // Renditions: the transcoder program itself (containers/transcoder), as a binding.
                // Automatic captions: the local speech engine (pocketsphinx), as a binding.
                ...(ffmpeg && {
                  serviceBindings: {
                    FRAMES: rememberingFrameService(),
                    TRANSCODER: (request: Request) => transcoderResponse(request),
                    ...(pocketsphinx && {
                      SPEECH: (request: Request) => speechResponse(request),
                    }),
                  },
                }),
                // Webhook deliveries go to a queue nobody consumes here: the tests hand each
                // message to the consumer themselves (createMessageBatch), on a fake clock, so
                // retries and duplicates are theirs to arrange. The e2e project runs the real queue.
                queueProducers: {
                  EVENTS_QUEUE: { queueName: "video-catalog-events" },
                  WEBHOOK_QUEUE: { queueName: "evc-webhook-deliveries-unconsumed" },
                },
              },
            }),
          ],
          // The live fixtures (ffmpeg's HLS segments) are imported as bytes: `.bin?inline`.
          assetsInclude: ["**/*.bin"],
          test: {
            name: "workers",
            // Integration tests in test/; the unit tests in src/ that need a binding (*.workers.test.ts).
            include: ["test/**/*.test.ts", "src/**/*.workers.test.ts"],
            exclude: ["test/e2e/**", "test/unit/**"],
            setupFiles: ["./test/setup/apply-migrations.ts"],
            // A webhook receiver (Node) the tests reach over loopback: inject("webhookReceiver");
            // a video of speech made by flite from a known text: inject("speechVideo").
            globalSetup: ["./test/e2e/harness/webhook-receiver.ts", "./test/setup/speech-video.ts"],
            // Hang detectors, not speed checks (test/helpers.ts, SETTLED_MS): a test or hook ends
            // when its work does, so a wide bound costs nothing when it passes; this one is far
            // beyond the slowest test or beforeAll (a few uploads) on a busy 2-core machine.
            testTimeout: 600_000,
            hookTimeout: 600_000,
            // Each test file starts a workerd of its own and sends it every module it imports
            // (the worker included, built: test/setup/worker-bundle.ts): pre-bundled
            // dependencies are a third fewer bytes to send.
            deps: {
              optimizer: {
                ssr: {
                  enabled: true,
                  include: importedEntryPoints(path.join(import.meta.dirname, "src")),
                },
              },
            },
          },
        },
        {
          // Unit tests of pure logic, in Node (no workerd to start): beside the modules they test
          // in src/, and in test/unit/ those that read the media fixtures.
          test: {
            name: "unit",
            include: ["src/**/*.test.ts", "test/unit/**/*.test.ts"],
            exclude: ["src/**/*.workers.test.ts"],
            environment: "node",
            // Vitest's 5 s default is a speed check on a busy machine (the fixtures' ffprobe).
            testTimeout: 60_000,
          },
        },
        {
          test: {
            name: "sdk",
            include: ["sdk/**/test/**/*.test.ts"],
            environment: "node",
            testTimeout: 60_000,
          },
        },
        "./test/e2e/vitest.config.ts",
      ],
    },
  };
});
