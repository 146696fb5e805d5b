// Production rendition transcoding: a Cloudflare Container running the transcoder program's
// image (containers/transcoder/Dockerfile; wrangler.toml [[containers]]), one Durable Object
// per instance. The renditions queue's consumer reaches it through TRANSCODER_CONTAINER
// (media/transcoder.ts, transcoderOf): a job goes to one of CONTAINER_INSTANCES named
// instances, which starts on its first request and sleeps after SLEEP_AFTER without one.
// Not run locally (no Docker here): npm run dev and the tests run the same program as a
// process or a service binding; docs/renditions.md "Production".
import { Container } from "@cloudflare/containers";

export class TranscoderContainer extends Container {
  /** containers/transcoder/server.mjs listens here. */
  override defaultPort = 8080;
  /** A queue of jobs keeps it warm; idle this long, it stops (and stops costing). */
  override sleepAfter = "5m";
  /** The program reads nothing from the internet: its input comes in the request. */
  override enableInternet = false;
  /** Readiness: the program answers GET /healthz once it listens. */
  override pingEndpoint = "localhost/healthz";
}
