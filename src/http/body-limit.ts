// Request body size limits (hono/body-limit), answering 413 in the route's error shape.
import { bodyLimit } from "hono/body-limit";
import { errorResponse } from "./errors";

export function limitBody(maxSize: number) {
  return bodyLimit({ maxSize, onError: (c) => errorResponse(c, 413, `the body is over ${maxSize} bytes`) });
}
