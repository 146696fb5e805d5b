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
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
