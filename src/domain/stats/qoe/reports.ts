// CMCD reports as the collector takes them (POST/GET /v2/cmcd, docs/qoe.md): each payload (a
// line of an application/cmcd body, the CMCD= query, the CMCD-* headers) read into the values a
// view needs, checked, and put on the event queue for the consumer (tally.ts). Unknown keys are
// ignored; a known key with a value of the wrong kind is a fault that names the payload and the
// key, and a request with a fault queues nothing (400). Nothing reads the database here.
import {
  type CmcdItem,
  CmcdSyntaxError,
  CmcdToken,
  type CmcdValue,
  parseCmcd,
} from "../../../shared/cmcd";
import { DAY_MS, utcDay } from "../../../shared/dates";
import { invalid } from "../../../shared/errors";
import { PLAYER_STATES, type PlayerState } from "../../../shared/qoe";
import type { QoeReport } from "./messages";

/** A payload and where it came from, for the faults: "line 3", "the CMCD query", "the CMCD-* headers". */
export interface CmcdPayload {
  where: string;
  text: string;
}

/** Reports per request (a body's lines), and the size of a payload: one queue message holds them all. */
export const CMCD_REPORTS_MAX = 200;
export const CMCD_PAYLOAD_MAX_CHARS = 4096;

/** A report's time may be at most this far ahead, or behind, of the service's clock (after the skew fix). */
const FUTURE_MS = 5 * 60_000;
const PAST_MS = DAY_MS;

const STATES = new Set<string>(PLAYER_STATES);
/** The stream paths whose URL names a content key: /hls/<key>/…, /live/<key>/…, /media/<key>/…. */
const STREAM_URL = /\/(?:hls|live|media)\/([A-Za-z0-9]{1,8})\//;

export interface ReadReports {
  reports: QoeReport[];
  /** Reports taken but of no use to a view (no session id, a time too far off), with why. */
  ignored: { where: string; reason: string }[];
}

type Check<T> = (value: CmcdValue) => T | undefined;

const text = (item: CmcdItem | undefined) =>
  item && (typeof item.value === "string" || item.value instanceof CmcdToken)
    ? String(item.value)
    : undefined;
const single = (value: CmcdValue) => (Array.isArray(value) ? undefined : value);

/** A number, or a list of numbers (v2 inner lists): the video's (`ot=v`/`av`) or the first. */
const numberOf: Check<number> = (value) => {
  const items = Array.isArray(value) ? value : [value];
  const pick =
    items.find((i) => {
      const ot = i.params?.ot;
      return ot instanceof CmcdToken && (ot.name === "v" || ot.name === "av");
    }) ?? items[0];
  return typeof pick?.value === "number" && pick.value >= 0 ? pick.value : undefined;
};
const integerOf: Check<number> = (value) => {
  const v = single(value)?.value;
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
};
const atMost =
  <T extends number>(check: Check<T>, max: number): Check<T> =>
  (value) => {
    const v = check(value);
    return v !== undefined && v <= max ? v : undefined;
  };
/** A day in milliseconds: no start delay or latency is longer. */
const DAY_OF_MS = 86_400_000;
const stringOf =
  (max: number): Check<string> =>
  (value) => {
    const s = text(single(value));
    return s !== undefined && s.length >= 1 && s.length <= max ? s : undefined;
  };
/** Error codes: players send a string, a token, a number (dash.js) or a list of them (hls.js). */
const codeOf: Check<string> = (value) => {
  const first = Array.isArray(value) ? value[0] : value;
  const v = first?.value;
  if (typeof v === "number") return String(v);
  const s = text(first);
  return s !== undefined && s.length <= 64 ? s : undefined;
};
const heightOf: Check<number> = (value) => {
  const v = integerOf(value);
  return v !== undefined && v >= 1 && v <= 10_000 ? v : undefined;
};

/** The keys a view uses, their checks, and what a fault says. */
const KEYS = {
  ts: [integerOf, "must be an integer (milliseconds since 1970)"],
  sn: [integerOf, "must be an integer"],
  e: [stringOf(16), "must be a token (ps, e, t, bc, rr …)"],
  sid: [stringOf(64), "must be a string of 1 to 64 characters"],
  cid: [stringOf(128), "must be a string of 1 to 128 characters"],
  sta: [
    (v: CmcdValue) => {
      const s = text(single(v));
      return s !== undefined && STATES.has(s) ? (s as PlayerState) : undefined;
    },
    `must be one of ${PLAYER_STATES.join(", ")}`,
  ],
  br: [
    atMost(numberOf, 10_000_000),
    "must be a number of kbit/s (at most 10000000) or a list of them",
  ],
  ec: [codeOf, "must be a string, token or number (at most 64 characters) or a list of them"],
  msd: [atMost(integerOf, DAY_OF_MS), "must be an integer of milliseconds (at most a day)"],
  ltc: [atMost(integerOf, DAY_OF_MS), "must be an integer of milliseconds (at most a day)"],
  st: [stringOf(4), "must be a token (v, l, ll)"],
  url: [stringOf(4096), "must be a string (a URL)"],
  "evc-vh": [heightOf, "must be an integer from 1 to 10000 (the video's height, px)"],
  "evc-ph": [heightOf, "must be an integer from 1 to 10000 (the player's height, px)"],
} as const satisfies Record<string, [Check<unknown>, string]>;

type Read = { -readonly [K in keyof typeof KEYS]?: NonNullable<ReturnType<(typeof KEYS)[K][0]>> };

/** The content key a stream URL names (a segment's `url` in an rr report, or `nor`). */
function contentKeyOfUrl(url: string | undefined): string | undefined {
  return url ? STREAM_URL.exec(url)?.[1] : undefined;
}

/**
 * Reads every payload of a request. Throws `invalid` (400) naming up to three faults when any
 * payload is malformed. `now`: the service's clock (ms).
 */
export function readCmcdReports(payloads: CmcdPayload[], now: number): ReadReports {
  const faults: string[] = [];
  const read: { where: string; values: Read; nor?: string }[] = [];
  for (const p of payloads) {
    if (p.text.length > CMCD_PAYLOAD_MAX_CHARS) {
      faults.push(`${p.where}: longer than ${CMCD_PAYLOAD_MAX_CHARS} characters`);
      continue;
    }
    let dict: Map<string, CmcdValue>;
    try {
      dict = parseCmcd(p.text);
    } catch (err) {
      if (!(err instanceof CmcdSyntaxError)) throw err;
      faults.push(`${p.where}: not a CMCD payload: ${err.message}`);
      continue;
    }
    const values: Read = {};
    for (const [key, [check, rule]] of Object.entries(KEYS)) {
      const raw = dict.get(key);
      if (raw === undefined) continue;
      const v = (check as Check<unknown>)(raw);
      if (v === undefined) faults.push(`${p.where}: ${key} ${rule}`);
      else (values as Record<string, unknown>)[key] = v;
    }
    if (values.e !== undefined && values.ts === undefined)
      faults.push(`${p.where}: ts is required in an event report (e=${values.e})`);
    const nor = dict.get("nor");
    read.push({
      where: p.where,
      values,
      nor: nor ? text(Array.isArray(nor) ? nor[0] : nor) : undefined,
    });
  }
  if (faults.length > 0) {
    const more = faults.length > 3 ? `; and ${faults.length - 3} more` : "";
    throw invalid(`malformed CMCD report: ${faults.slice(0, 3).join("; ")}${more}`);
  }

  // A viewer's clock may be off by hours: when the newest report lies outside the window, the
  // request's times are moved so that it was sent now (the players send as events happen).
  const newest = Math.max(...read.map((r) => r.values.ts ?? now));
  const shift = newest > now + FUTURE_MS || newest < now - PAST_MS ? now - newest : 0;
  const reports: QoeReport[] = [];
  const ignored: ReadReports["ignored"] = [];
  for (const { where, values: v, nor } of read) {
    if (v.sid === undefined) {
      ignored.push({ where, reason: "no sid: a report without a session id belongs to no view" });
      continue;
    }
    const ts = (v.ts ?? now) + shift;
    if (ts > now + FUTURE_MS || ts < now - PAST_MS) {
      ignored.push({ where, reason: "ts: more than 24 hours older than the newest report" });
      continue;
    }
    const report: QoeReport = {
      ts,
      sn: v.sn ?? 0,
      // A payload without `e` is request-mode data (a query or headers): a report of the state.
      k: v.e ?? "rq",
      sid: v.sid,
    };
    if (v.cid !== undefined) report.cid = v.cid;
    const urlKey = contentKeyOfUrl(v.url) ?? contentKeyOfUrl(nor);
    if (urlKey !== undefined) report.uk = urlKey;
    if (v.sta !== undefined) report.sta = v.sta;
    if (v.br !== undefined) report.br = Math.round(v.br);
    if (v["evc-vh"] !== undefined) report.vh = v["evc-vh"];
    if (v["evc-ph"] !== undefined) report.ph = v["evc-ph"];
    if (v.ec !== undefined) report.ec = v.ec;
    if (v.msd !== undefined) report.msd = v.msd;
    if (v.ltc !== undefined) report.ltc = v.ltc;
    if (v.st !== undefined) report.st = v.st;
    reports.push(report);
  }
  return { reports, ignored };
}

/** The UTC day a report counts on. */
export const reportDay = (r: QoeReport) => utcDay(r.ts);
