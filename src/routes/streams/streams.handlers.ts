import { streamCaching } from "../../domain/streaming/caching";
import { streamFile } from "../../domain/streaming/files";
import { NoStream } from "../../domain/streaming/indexes";
import { SubtitleUnavailable } from "../../domain/streaming/subtitles";
import { requestDeps } from "../../http/deps";
import { ApiError } from "../../http/errors";
import type { AppRouteHandler } from "../../http/router";
import { serveBytes } from "../../http/serve-object";
import { notFound } from "../../shared/errors";
import { etagMatches } from "../../shared/etag";
import { parseStreamFile } from "../../shared/stream-files";
import type * as routes from "./streams.routes";

export const stream: AppRouteHandler<typeof routes.stream> = async (c) => {
  const { contentKey, version, file } = c.req.valid("param");
  // The route's pattern is the grammar's: a valid name parses.
  const requested = parseStreamFile(file)!;
  // The servable gate checked the version before the edge cache, once.
  const stream = c.get("servedStream");
  if (!stream) throw notFound(`no stream version ${version} of ${contentKey}`);
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": "*",
    "Cache-Control": streamCaching(requested).cacheControl,
  };
  const answer = await streamFile(requestDeps(c), stream, requested).catch((err: unknown) => {
    if (err instanceof NoStream) throw notFound(err.message);
    // The publisher's subtitle file, not the request, is at fault.
    if (err instanceof SubtitleUnavailable) throw new ApiError(502, err.message);
    throw err;
  });
  // The bytes under a version never change, bar the subtitles a master playlist lists and their
  // files' text: the version, the file and those make a strong validator.
  headers.ETag = `"${version}.${file}${answer.kind === "text" && answer.variant ? `.${answer.variant}` : ""}"`;
  if (etagMatches(c.req.header("If-None-Match"), headers.ETag))
    return new Response(null, { status: 304, headers });
  if (answer.kind === "text")
    return new Response(answer.body, {
      status: 200,
      headers: { ...headers, "Content-Type": `${answer.contentType}; charset=utf-8` },
    });
  return serveBytes(c, answer.bytes, {
    ...headers,
    "Content-Type": "video/mp4",
    "Accept-Ranges": "bytes",
  });
};
