// The database side of event ingestion, run by the queue consumer on a batch of messages: the
// events whose content key is their organization's (or its network's) are tallied into the rows
// they touch — the daily rollups and their totals per content key and day, per content key and
// month, per organization and day, and the running totals per content key — with one upsert per
// table (per 500 distinct rows; two statements for the running totals), in one
// atomic D1 batch with the message ids, the cardinality bookkeeping and the ingestion figures.
//
// Cardinality caps (docs/design.md "Scale"): per organization, UTC day and free-form dimension at
// most `valuesPerDay` distinct values; a value beyond it is counted under `other`, so totals stay
// exact while one client cannot create rows without bound. Viewer identities (fingerprint, tput)
// are capped per client and day instead (`viewerIdsPerIp`; a client is an IPv4 address or an
// IPv6 /64): real viewers are many, but one address has few. Then the organization's ceiling
// (`newViewersPerDay`, by plan: ceilings.ts) bounds what a pool of addresses can add: past it a
// new viewer (ip + fingerprint + tput) is counted as `other` in all three. Batches that run at
// the same time decide on the same counts, so a cap may be passed by the new values of
// concurrent batches; the counters stay exact either way.
//
// Two words: to *tally* a batch is to add its events to the counters (tallyBatch); a value is
// *folded* when a cap counts it as `other` (the figures `valuesFolded`, `viewersFolded`).
import { type Db, runBatch } from "../../db/client";
import { playableContentKeys } from "../../db/content";
import type { OrganizationWithNetwork } from "../../db/organizations";
import type { StatsDb } from "../../db/stats/client";
import {
  type DimensionValue,
  dimensionState,
  registerDimensionValues,
  slotKey,
  valueKey,
} from "../../db/stats/dimensions";
import { addIngestionDays, recordMessageIds } from "../../db/stats/ingestion";
import {
  addToRunningTotals,
  type CounterIncrement,
  type CounterTable,
  type KeyOf,
  ROLLUP_LIST,
  ROLLUPS,
  type Rollup,
  upsertIncrements,
} from "../../db/stats/rollups";
import { addressBucket } from "../../shared/client-address";
import { NONE, OTHER } from "../../shared/counters";
import { utcDay } from "../../shared/dates";
import type { Plan } from "../../shared/vocabulary";
import type { CountedEvent } from "./events";
import type { QoeBatch } from "./qoe/messages";
import { namedContentKeys, tallyQoe } from "./qoe/tally";
import type { Refused } from "./queued-events";

/** The cardinality caps a batch is tallied under. */
export interface CapLimits {
  valuesPerDay: number;
  viewerIdsPerIp: number;
  /** The organization's ceiling on new viewers per UTC day (by plan). */
  newViewersPerDay: (plan: Plan) => number;
}

/** The events of one organization in a batch (of the messages not counted yet). */
export interface OrganizationEvents {
  org: OrganizationWithNetwork;
  messages: number;
  events: CountedEvent[];
  /** Events the requests refused (tallies sent by the request side), added to the day's figures. */
  refused: Refused;
  /** CMCD collector reports (qoe/): counted as events, tallied into the QoE tables. */
  qoe: QoeBatch[];
  /** When the oldest of these messages was queued (ms): the queue's lag for the ingestion figures. */
  oldestQueuedMs: number;
}

/** What the batch did for one organization (also added to its ingestion day). */
export interface OrganizationOutcome {
  organizationId: number;
  organizationKey: string;
  messages: number;
  counted: number;
  /** Events whose content key is not the organization's or its network's. */
  rejected: number;
  /** Values counted as `other` because their dimension was at its cap. */
  folded: number;
  /** New viewers counted as `other` past the organization's daily ceiling. */
  viewersFolded: number;
  refused: Refused;
  lastRejection: string | null;
  /** CMCD reports tallied (the alerts judge these organizations' windows after the batch). */
  qoeReports: number;
}

/** An event of the batch with its organization. */
type BatchEvent = CountedEvent & { organizationId: number };

/** Sums increments per row key, so each row is written once per batch. */
class Increments<T extends CounterTable> {
  private rows = new Map<string, CounterIncrement<KeyOf<T>>>();
  private readonly keyNames: string[];
  constructor(readonly target: T) {
    this.keyNames = Object.keys(target.key);
  }

  add(key: KeyOf<T>, counter: string): void {
    const values: Record<string, string | number> = key;
    const id = JSON.stringify(this.keyNames.map((k) => values[k]));
    let row = this.rows.get(id);
    if (!row) this.rows.set(id, (row = { key, counters: {} }));
    row.counters[counter] = (row.counters[counter] ?? 0) + 1;
  }

  values() {
    return [...this.rows.values()];
  }

  upserts(statsDb: StatsDb) {
    return upsertIncrements(statsDb, this.target, this.values());
  }
}

/** The increments of a rollup and of its three totals, added together. */
class RollupIncrements<R extends Rollup> {
  readonly rows: Increments<R>;
  readonly day: Increments<Rollup["totals"]["day"]>;
  readonly month: Increments<Rollup["totals"]["month"]>;
  readonly orgDay: Increments<Rollup["totals"]["orgDay"]>;
  constructor(rollup: R) {
    this.rows = new Increments(rollup);
    this.day = new Increments(rollup.totals.day);
    this.month = new Increments(rollup.totals.month);
    this.orgDay = new Increments(rollup.totals.orgDay);
  }

  add(rowKey: KeyOf<R>, e: BatchEvent, counter: string): void {
    const { organizationId, day: date, contentKey } = e;
    this.rows.add(rowKey, counter);
    this.day.add({ organizationId, date, contentKey }, counter);
    this.month.add({ organizationId, month: date.slice(0, 7), contentKey }, counter);
    this.orgDay.add({ organizationId, date }, counter);
  }

  upserts(statsDb: StatsDb) {
    return [this.rows, this.day, this.month, this.orgDay].flatMap((inc) => inc.upserts(statsDb));
  }
}

/** The capped values an event carries: [field, dimension name]. */
function cappedValues(e: CountedEvent): [keyof Capped, string][] {
  const fields: [keyof Capped, string][] = [];
  if (e.target.kind !== "ecommerce") fields.push(["playerId", "player_id"]);
  if (e.target.kind === "ad") fields.push(["adCreative", "ad_creative"], ["adSystem", "ad_system"]);
  if (e.target.kind === "ecommerce") fields.push(["ecommerceKey", "ecommerce_key"]);
  // Per client; without an IP (local tools: Cloudflare always sets it) there is no client to cap.
  if (e.viewer && e.viewer.ip !== NONE) {
    const client = addressBucket(e.viewer.ip);
    fields.push(["fingerprint", `fingerprint@${client}`], ["tputHash", `tput@${client}`]);
  }
  return fields;
}

/** The dimension under which an organization's viewers of a day are counted (their ceiling). */
export const VIEWERS_DIMENSION = "viewers";

/**
 * A viewer's identity as a dimension value: 64 bits of FNV-1a over ip, fingerprint and tput hash
 * (after the per-client caps), so the bookkeeping holds no personal data and stays short. Not a
 * secret: a collision only counts two viewers as one.
 */
function viewerIdentity(v: NonNullable<CountedEvent["viewer"]>): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const ch of `${v.ip}\u0000${v.fingerprint}\u0000${v.tputHash}`) {
    const c = ch.codePointAt(0)!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

type Capped = Pick<CountedEvent, "playerId" | "adCreative" | "adSystem" | "ecommerceKey"> & {
  fingerprint: string;
  tputHash: string;
};

const read = (e: CountedEvent, field: keyof Capped) =>
  field === "fingerprint" || field === "tputHash" ? e.viewer![field] : e[field];

function write(e: CountedEvent, field: keyof Capped, value: string): void {
  if (field === "fingerprint" || field === "tputHash") e.viewer![field] = value;
  else e[field] = value;
}

/**
 * Replaces values past their dimension's cap by `other` (in place), admitting new ones in batch
 * order while there is room. Returns the new values to record and how many were folded per
 * organization.
 */
async function applyCaps(
  statsDb: StatsDb,
  events: BatchEvent[],
  limits: CapLimits,
  plans: Map<number, Plan>,
  /** More uses of free-form values (the player ids of CMCD reports), folded by their own callback. */
  more: CappedUse[] = [],
) {
  const capOf = (dimension: string) =>
    dimension.includes("@") ? limits.viewerIdsPerIp : limits.valuesPerDay;
  const values = await admit(
    statsDb,
    [
      ...events.flatMap((e) =>
        cappedValues(e)
          .map(([field, dimension]) => ({
            v: { organizationId: e.organizationId, day: e.day, dimension, value: read(e, field) },
            fold: () => write(e, field, OTHER),
          }))
          .filter(({ v }) => v.value !== NONE),
      ),
      ...more,
    ],
    (v) => capOf(v.dimension),
    ({ fold }) => fold(),
  );
  // The organization's ceiling, on the viewers as the per-client caps left them.
  const viewers = await admit(
    statsDb,
    events.flatMap((e) =>
      e.viewer
        ? [
            {
              e,
              v: {
                organizationId: e.organizationId,
                day: e.day,
                dimension: VIEWERS_DIMENSION,
                value: viewerIdentity(e.viewer),
              },
            },
          ]
        : [],
    ),
    (v) => limits.newViewersPerDay(plans.get(v.organizationId)!),
    ({ e }) => (e.viewer = { ip: OTHER, fingerprint: OTHER, tputHash: OTHER }),
  );
  return {
    fresh: [...values.fresh, ...viewers.fresh],
    folded: values.folded,
    viewersFolded: viewers.folded,
  };
}

/**
 * Admits new values in batch order while their slot (organization, day, dimension) is under its
 * cap; `fold` rewrites the use of each value past it. Returns the values to record and the folds
 * per organization.
 */
/** A use of a capped value, and what folds it into `other`. */
interface CappedUse {
  v: DimensionValue;
  fold: () => void;
}

async function admit<U extends { v: DimensionValue }>(
  statsDb: StatsDb,
  uses: U[],
  cap: (v: DimensionValue) => number,
  fold: (use: U) => void,
) {
  const admitted = new Map<string, DimensionValue>();
  const folded = new Map<number, number>();
  if (uses.length === 0) return { fresh: [], folded };
  const { known, counts } = await dimensionState(
    statsDb,
    uses.map((u) => u.v),
  );
  for (const use of uses) {
    const { v } = use;
    const key = valueKey(v);
    if (known.has(key) || admitted.has(key)) continue;
    const used = counts.get(slotKey(v)) ?? 0;
    if (used < cap(v)) {
      admitted.set(key, v);
      counts.set(slotKey(v), used + 1);
    } else {
      fold(use);
      folded.set(v.organizationId, (folded.get(v.organizationId) ?? 0) + 1);
    }
  }
  return { fresh: [...admitted.values()], folded };
}

function addToRollups(rollups: Map<Rollup, RollupIncrements<Rollup>>, e: BatchEvent): void {
  const of = <R extends Rollup>(r: R) =>
    (rollups.get(r) ?? rollups.set(r, new RollupIncrements(r)).get(r)!) as RollupIncrements<R>;
  const { target, day: date, contentKey, organizationId } = e;
  const common = { organizationId, date, contentKey };
  if (target.kind === "video") {
    of(ROLLUPS.video).add(
      {
        ...common,
        country: e.country3,
        videoDeviceType: e.device,
        videoPlayerId: e.playerId,
      },
      e,
      target.counter,
    );
  } else if (target.kind === "ad") {
    of(ROLLUPS.ad).add(
      {
        ...common,
        adCountry: e.country2,
        adCreative: e.adCreative,
        adDeviceType: e.device,
        adPlayerId: e.playerId,
        adPosition: e.adPosition,
        adSystem: e.adSystem,
      },
      e,
      target.counter,
    );
  } else {
    of(ROLLUPS.ecommerce).add(
      { ...common, ecommerceKey: e.ecommerceKey, deviceType: e.device },
      e,
      target.counter,
    );
  }
  if (target.viewerCounter && e.viewer) {
    of(ROLLUPS.viewer).add(
      {
        ...common,
        country: e.country3,
        deviceType: e.device,
        ip: e.viewer.ip,
        fingerprint: e.viewer.fingerprint,
        tputHash: e.viewer.tputHash,
        adPosition: target.kind === "ad" ? e.adPosition : NONE,
      },
      e,
      target.viewerCounter,
    );
  }
}

/**
 * Counts a batch: checks content keys (catalog), applies the caps, and writes everything in one
 * D1 batch on the statistics database (the organizations' shard), whose first statement
 * records the messages' ids (a plain INSERT: the batch fails, counting nothing, when another
 * delivery recorded one of them first).
 */
export async function tallyBatch(
  db: Db,
  statsDb: StatsDb,
  messages: { id: string; organizationId: number }[],
  byOrganization: OrganizationEvents[],
  limits: CapLimits,
  now: Date,
): Promise<OrganizationOutcome[]> {
  const playable = await Promise.all(
    byOrganization.map(({ org, events, qoe }) =>
      playableContentKeys(db, org.id, org.networkId, [
        ...new Set([...events.map((e) => e.contentKey), ...qoe.flatMap(namedContentKeys)]),
      ]),
    ),
  );
  const outcomes: OrganizationOutcome[] = [];
  const counted: BatchEvent[] = [];
  byOrganization.forEach(({ org, events, messages, refused, qoe }, i) => {
    const qoeReports = qoe.reduce((n, b) => n + b.reports.length, 0);
    const outcome: OrganizationOutcome = {
      organizationId: org.id,
      organizationKey: org.organizationKey,
      messages,
      counted: qoeReports,
      rejected: 0,
      folded: 0,
      viewersFolded: 0,
      refused,
      lastRejection: null,
      qoeReports,
    };
    for (const e of events) {
      if (playable[i]!.has(e.contentKey)) {
        counted.push({ ...e, viewer: e.viewer && { ...e.viewer }, organizationId: org.id });
        outcome.counted += 1;
      } else {
        outcome.rejected += 1;
        outcome.lastRejection = `contentKey: ${e.contentKey} is not a video of this organization or its network`;
      }
    }
    outcomes.push(outcome);
  });

  const plans = new Map(byOrganization.map(({ org }) => [org.id, org.plan]));
  // The player ids of CMCD reports share the events' cap (the dimension player_id of their day).
  const playerIds: CappedUse[] = byOrganization.flatMap(({ org, qoe }) =>
    qoe.flatMap((b) =>
      b.playerId === undefined
        ? []
        : [...new Set(b.reports.map((r) => utcDay(r.ts)))].map((day) => ({
            v: { organizationId: org.id, day, dimension: "player_id", value: b.playerId! },
            fold: () => (b.playerId = OTHER),
          })),
    ),
  );
  const { fresh, folded, viewersFolded } = await applyCaps(
    statsDb,
    counted,
    limits,
    plans,
    playerIds,
  );
  for (const o of outcomes) {
    o.folded = folded.get(o.organizationId) ?? 0;
    o.viewersFolded = viewersFolded.get(o.organizationId) ?? 0;
  }

  const today = utcDay(now.getTime());
  const rollups = new Map<Rollup, RollupIncrements<Rollup>>();
  for (const e of counted) addToRollups(rollups, e);
  const upserts = ROLLUP_LIST.flatMap((r) => {
    const increments = rollups.get(r);
    if (!increments) return [];
    return [
      ...increments.upserts(statsDb),
      ...addToRunningTotals(statsDb, r.totals, increments.day.values(), today),
    ];
  });

  const qoe = await tallyQoe(
    db,
    statsDb,
    byOrganization.flatMap(({ org, qoe }, i) =>
      qoe.length ? [{ organizationId: org.id, batches: qoe, playable: playable[i]! }] : [],
    ),
  );

  const at = now.toISOString();
  await runBatch(statsDb, [
    recordMessageIds(statsDb, messages),
    ...registerDimensionValues(statsDb, fresh),
    ...upserts,
    ...qoe,
    addIngestionDays(
      statsDb,
      outcomes.map((o) => ({
        organizationId: o.organizationId,
        day: today,
        messages: o.messages,
        eventsCounted: o.counted,
        eventsRejected: o.rejected,
        valuesFolded: o.folded,
        viewersFolded: o.viewersFolded,
        eventsRefused: o.refused.ceiling,
        eventsRefusedPerAddress: o.refused.address,
        lastRejection: o.lastRejection,
        at,
        lagMs: Math.max(
          0,
          now.getTime() - byOrganization.find((g) => g.org.id === o.organizationId)!.oldestQueuedMs,
        ),
      })),
    ),
  ]);
  return outcomes;
}
