// Consumer of the feed-rebuilds queue: each message asks for one organization's dirty feeds to
// be republished (domain/feeds/rebuild-requests.ts). Messages of the same organization in a
// batch are answered by one pass; the batch shares one work budget (FEED_WORK_MS,
// FEED_WORK_ROWS), and an organization the budget does not reach is asked for again. A pass
// that fails is retried after a delay; once retries run out, the cron rebuilds what is dirty.
import { z } from "zod";
import { backgroundDeps } from "../domain/background";
import { rebuildRequested, requestFeedRebuild } from "../domain/feeds/rebuild-requests";
import { recordFeedWork } from "../domain/feeds/work";
import type { Env } from "../env";

const request = z.object({
  organizationId: z.number().int().positive(),
  feedList: z.boolean().default(false),
});

/** Seconds before a failed pass is tried again. */
const RETRY_DELAY_SECONDS = 10;

export async function consumeFeedRebuilds(
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const { deps, budget } = backgroundDeps(env, new Date(), Date.now, (work) => ctx.waitUntil(work));
  const byOrganization = new Map<number, { messages: Message<unknown>[]; feedList: boolean }>();
  for (const message of batch.messages) {
    const parsed = request.safeParse(message.body);
    if (!parsed.success) {
      // Retrying cannot fix it: drop it, loudly.
      console.error(
        JSON.stringify({
          level: "error",
          msg: "feed-rebuilds: malformed message dropped",
          id: message.id,
          error: parsed.error.message,
        }),
      );
      message.ack();
      continue;
    }
    const group = byOrganization.get(parsed.data.organizationId) ?? {
      messages: [],
      feedList: false,
    };
    group.messages.push(message);
    group.feedList ||= parsed.data.feedList;
    byOrganization.set(parsed.data.organizationId, group);
  }

  let feeds = 0;
  let patched = 0;
  for (const [organizationId, { messages, feedList }] of byOrganization) {
    try {
      if (feeds > 0 && budget.exhausted()) await requestFeedRebuild(deps, organizationId, feedList);
      else {
        const result = await rebuildRequested(deps, organizationId, feedList, budget);
        feeds += result.feeds;
        patched += result.patched;
        console.log(
          JSON.stringify({
            msg: "feeds republished (queue)",
            organization_id: organizationId,
            ...result,
            ...budget.spent(),
          }),
        );
      }
      for (const m of messages) m.ack();
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "feed-rebuilds: pass failed; retried",
          organization_id: organizationId,
          attempts: messages[0]!.attempts,
          error: String(err),
        }),
      );
      for (const m of messages) m.retry({ delaySeconds: RETRY_DELAY_SECONDS });
    }
  }
  if (feeds > 0) await recordFeedWork(deps.db, budget.spent(), feeds, patched);
}
