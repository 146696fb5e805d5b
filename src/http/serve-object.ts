// Stored R2 objects (media, thumbnails, feed files) as HTTP answers.
import type { Context } from "hono";
import { serveObject, type ServeOptions } from "../storage/objects";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/** An R2 object as an HTTP answer; null when it does not exist. */
export async function serveStored(c: Context<AppEnv>, key: string, options: ServeOptions): Promise<Response | null> {
  const served = await serveObject(c.env.MEDIA, key, c.req.raw, options);
  if (served.kind === "missing") return null;
  if (served.kind === "unsatisfiable") {
    throw new ApiError(416, `Range: not satisfiable; the object has ${served.size} bytes`, { "Content-Range": `bytes */${served.size}` });
  }
  return served.response;
}
