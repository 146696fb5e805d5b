import { createClip } from "../../domain/clips/clips";
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./clips.routes";

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(
    await createClip(
      { ...requestDeps(c), liveStreams: c.env.LIVE_STREAMS },
      requestScope(c),
      c.req.valid("json"),
    ),
    202,
  );
