// The embed page's gates: a video's signed playback and playback rights, checked as at its
// media (signed-playback.ts, playback-rights.ts), but a viewer they refuse gets the player page
// saying why, in the player's own words (routes/embed), instead of a JSON answer rendered as the
// iframe's page. The refusal, or whether the answer depends on who asks, is left in the context.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/context";
import { DomainError } from "../shared/errors";
import { checkRequestRights } from "./playback-rights";
import { checkRequestToken } from "./signed-playback";

export const embedGates: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    await checkRequestToken(c);
    c.set("playbackRestricted", (await checkRequestRights(c, { framed: true })).restricted);
  } catch (err) {
    if (!(err instanceof DomainError) || !err.refusal) throw err;
    c.set("refusal", err);
  }
  await next();
};
