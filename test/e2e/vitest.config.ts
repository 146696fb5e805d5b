import { defineProject } from "vitest/config";

// Node tests against one real `wrangler dev` shared by every file of the project (started and
// stopped by global-setup.ts), and the player SDK in headless Chromium. See test/e2e/README.md.
export default defineProject({
  test: {
    name: "e2e",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    environment: "node",
    globalSetup: ["./global-setup.ts"],
    // Node's fetch sends again what wrangler's proxy lost (harness/proxy-retry.ts).
    setupFiles: ["./harness/proxy-retry.ts"],
    // Hang detectors, not speed checks (harness/api.ts, SETTLED_MS): a test ends when its work
    // does, so a wide bound costs nothing when it passes; far beyond the slowest test (the
    // console's steps, the fuzzer's requests) on a busy 2-core machine.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // expect.poll's default wait (vitest's is 1 s) is SETTLED_MS (harness/api.ts): a poll that
    // names no timeout waits for a browser or the queue as long as one that does.
    expect: { poll: { timeout: 180_000 } },
  },
});
