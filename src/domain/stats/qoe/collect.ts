// The collector's part of a request (POST/GET /v2/cmcd): the payloads read (reports.ts), then
// one message on the event queue for the consumer. Nothing is written in the request.
import type { OrganizationWithNetwork } from "../../../db/organizations";
import { NONE } from "../../../shared/counters";
import { alpha3 } from "../../../shared/geo";
import { EventsNotQueued } from "../ingest";
import { messageId } from "../queued-events";
import type { QoeMessage } from "./messages";
import { type CmcdPayload, type ReadReports, readCmcdReports } from "./reports";

export interface CmcdSource {
  now: number;
  /** The requester's country, alpha-2. */
  country: string | null;
  /** Device type (from the User-Agent). */
  device: string;
  playerId?: string;
  contentKey?: string;
  /** A player token bound to one content key covers only that video's reports. */
  tokenContentKey: string | null;
}

export interface CollectResult {
  accepted: number;
  ignored: ReadReports["ignored"];
}

export async function collectCmcd(
  queue: Queue<unknown>,
  org: Pick<OrganizationWithNetwork, "id" | "organizationKey">,
  payloads: CmcdPayload[],
  source: CmcdSource,
): Promise<CollectResult> {
  const { reports, ignored } = readCmcdReports(payloads, source.now);
  if (reports.length === 0) return { accepted: 0, ignored };
  const bound = source.tokenContentKey;
  if (bound !== null)
    for (const r of reports) {
      if (r.cid !== bound) delete r.cid;
      if (r.uk !== bound) delete r.uk;
    }
  const message: QoeMessage = {
    v: 1,
    id: messageId(source.now),
    organizationId: org.id,
    qoe: {
      country3: alpha3(source.country) ?? NONE,
      device: source.device,
      ...(source.playerId !== undefined && { playerId: source.playerId }),
      ...((bound ?? source.contentKey) !== undefined && {
        contentKey: (bound ?? source.contentKey)!,
      }),
      reports,
    },
  };
  try {
    await queue.send(message, { contentType: "json" });
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "cmcd reports not queued",
        organization: org.organizationKey,
        error: String(err).slice(0, 200),
      }),
    );
    throw new EventsNotQueued("the event queue is unavailable", { cause: err });
  }
  return { accepted: reports.length, ignored };
}
