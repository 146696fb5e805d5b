// The event queue's CMCD messages: what the collector (POST/GET /v2/cmcd) puts on the queue and
// the consumer reads back. One message per request, with an id of its own like every message of
// the queue (queued-events.ts: exactly-once counting), the request's organization, where it came
// from (country, device type, the URL's player id and content key) and its reports.
import { z } from "zod";
import { PLAYER_STATES } from "../../../shared/qoe";

const value = z.string().min(1).max(512);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const qoeReport = z.strictObject({
  ts: count,
  sn: count,
  /** CMCD `e` (ps, e, t, bc, rr, …); rq for a request-mode payload without one. */
  k: z.string().min(1).max(16),
  sid: z.string().min(1).max(64),
  cid: z.string().min(1).max(128).optional(),
  /** The content key named by the report's stream URL (`url`, `nor`). */
  uk: z.string().min(1).max(8).optional(),
  sta: z.enum(PLAYER_STATES).optional(),
  br: count.optional(),
  vh: count.optional(),
  ph: count.optional(),
  ec: z.string().min(1).max(64).optional(),
  msd: count.optional(),
  ltc: count.optional(),
  st: z.string().min(1).max(4).optional(),
});
export type QoeReport = z.infer<typeof qoeReport>;

export const qoeBatch = z.strictObject({
  country3: value,
  device: value,
  playerId: value.optional(),
  /** The collector URL's `contentKey`: the view's content when its reports name none. */
  contentKey: value.optional(),
  reports: z.array(qoeReport).min(1).max(500),
});
export type QoeBatch = z.infer<typeof qoeBatch>;

export const qoeMessage = z.strictObject({
  v: z.literal(1),
  id: z.string().min(10).max(64),
  organizationId: z.number().int().positive(),
  qoe: qoeBatch,
});
export type QoeMessage = z.infer<typeof qoeMessage>;
