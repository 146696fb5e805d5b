import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      TEST_STATS_MIGRATIONS: D1Migration[];
    }
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The webhook receiver (test/e2e/harness/webhook-receiver.ts), e.g. http://127.0.0.1:41234 */
    webhookReceiver: string;
  }
}
