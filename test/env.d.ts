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
    /**
     * A video of speech flite made from a known text (test/setup/speech-video.ts): its bytes
     * (base64) and when each word is said; `missing`: the tools this machine lacks for it.
     */
    speechVideo: {
      missing: string[];
      mp4?: string;
      words?: { word: string; start: number; end: number }[];
      seconds?: number;
      /** Its first two sentences as an HEVC source (transcoded before it is published). */
      hevcMp4?: string;
      hevcWords?: { word: string; start: number; end: number }[];
    };
  }
}
