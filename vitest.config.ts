import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import path from "node:path";
import { defineConfig } from "vitest/config";

// Tests run inside workerd with the worker's real bindings (local D1, R2, KV from miniflare).
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            SIGNING_SECRET: "test-signing-secret-0123456789",
            // The public origin written into URLs (tests call the worker at this origin).
            PUBLIC_BASE_URL: "https://catalog.test",
            // R2's minimum part size, so tests can upload two real parts.
            CHUNK_SIZE: String(5 * 1024 * 1024),
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup/apply-migrations.ts"],
      testTimeout: 30_000,
      // The worker logs JSON lines (requests, feed rebuilds); keep test output readable (errors,
      // on stderr, still show).
      onConsoleLog: (log: string, type: "stdout" | "stderr") => !(type === "stdout" && /^\{"(method|msg)"/.test(log)),
    },
  };
});
