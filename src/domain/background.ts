// The dependencies of work that runs outside a request (the cron, queue consumers): the same
// stores as a request, over a metered database so the work is budgeted and reported in D1 rows
// read (feeds/work.ts). Throws without PUBLIC_BASE_URL: no file is published with a made-up origin.
import { loadConfig } from "../config";
import { createDb } from "../db/client";
import { D1Meter, meterD1 } from "../db/metered-d1";
import type { Env } from "../env";
import { frameSourceOf } from "../media/frames";
import { speechEngineOf } from "../media/speech";
import type { Deps } from "./deps";
import { type WorkBudget, workBudget } from "./feeds/work";
import { renditionQueueOf } from "./renditions";

export interface Background {
  deps: Deps;
  meter: D1Meter;
  /** The feed work budget of this invocation (FEED_WORK_MS, FEED_WORK_ROWS), counted from now. */
  budget: WorkBudget;
}

export function backgroundDeps(
  env: Env,
  now: Date,
  clock: () => number,
  defer: (work: Promise<unknown>) => void,
): Background {
  const meter = new D1Meter();
  const config = loadConfig(env);
  const deps: Deps = {
    db: createDb(meterD1(env.DB, meter)),
    bucket: env.MEDIA,
    feedRebuilds: env.FEED_REBUILDS,
    webhookQueue: env.WEBHOOK_QUEUE,
    config,
    origins: { baseUrl: config.publicBaseUrl, staticUrl: config.staticUrl },
    now,
    defer,
    frames: frameSourceOf(env),
    renditionJobs: renditionQueueOf(env),
    liveStreams: env.LIVE_STREAMS,
    speech: speechEngineOf(env),
  };
  return { deps, meter, budget: workBudget(meter, clock, config.feedWork) };
}
