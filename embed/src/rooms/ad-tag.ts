// Reading an ad tag and a break's VAST with @dailymotion/vast-client and @dailymotion/vmap (no
// XML code of our own beyond telling the two apart): the schedule of breaks, each break's
// response, the creative this browser plays. Part of the ad chunk (ads.ts).
import { VASTClient, VASTParser } from "@dailymotion/vast-client";
import VMAP from "@dailymotion/vmap";

/** One ad break: where its VAST comes from and when it plays (seconds; 0 = preroll). */
export interface BreakSource {
  id: string;
  offset: number;
  /** A VAST document in hand (the tag's own answer, or a VMAP's VASTAdData). */
  vast?: Document | Element;
  /** A VAST tag to fetch (a VMAP's AdTagURI). */
  uri?: string;
  /** Fetch the player's tag again, with fresh macros (midrolls of a plain VAST tag). */
  retag?: boolean;
}

export interface Schedule {
  breaks: BreakSource[];
}

async function fetchXml(url: string, timeoutMs: number): Promise<Document> {
  const res = await fetch(url, { credentials: "omit", signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`the ad tag answered ${res.status}`);
  const doc = new DOMParser().parseFromString(await res.text(), "text/xml");
  if (doc.getElementsByTagName("parsererror").length > 0 || !doc.documentElement)
    throw new Error("the ad tag's answer is not well-formed XML");
  return doc;
}

/** VMAP timeOffset: start, end, HH:MM:SS(.mmm), or n% (of `duration`). */
export function offsetOf(value: string | null): number | null {
  if (!value || value === "start") return 0;
  const hms = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value);
  if (hms) return Number(hms[1]) * 3600 + Number(hms[2]) * 60 + Number(hms[3]);
  // end, percentages, positions: not supported (the spec's positions are preroll and midroll).
  return null;
}

/**
 * Reads the player's tag: a VMAP gives its breaks; a VAST is the preroll, and each of the
 * configuration's midroll offsets asks the tag again.
 */
export async function loadSchedule(
  tagUrl: string,
  midrolls: number[],
  timeoutMs: number,
): Promise<Schedule> {
  const doc = await fetchXml(tagUrl, timeoutMs);
  if (doc.documentElement.localName === "VMAP") {
    const vmap = new VMAP(doc);
    const breaks: BreakSource[] = [];
    for (const [n, b] of vmap.adBreaks.entries()) {
      const offset = offsetOf(b.timeOffset);
      if (offset === null || (b.breakType && !b.breakType.includes("linear"))) continue;
      const id = offset === 0 ? "preroll" : `vmap-${n}`;
      if (breaks.some((x) => x.id === id)) continue;
      breaks.push({
        id,
        offset,
        vast: b.adSource?.vastAdData ?? undefined,
        uri: b.adSource?.adTagURI?.uri ?? undefined,
      });
    }
    return { breaks };
  }
  if (doc.documentElement.localName !== "VAST")
    throw new Error(
      `the ad tag's answer is neither VAST nor VMAP (<${doc.documentElement.localName}>)`,
    );
  return {
    breaks: [
      { id: "preroll", offset: 0, vast: doc },
      ...midrolls
        .filter((s) => Number.isFinite(s) && s > 0)
        .map((s) => ({ id: `midroll-${s}`, offset: s, retag: true })),
    ],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the VAST parser's documents are untyped JSON-like trees.
export type Any = any;

/** The first linear creative with a media file this browser plays. */
export function pickLinear(response: Any, video: HTMLVideoElement) {
  for (const ad of response?.ads ?? []) {
    for (const creative of ad.creatives ?? []) {
      if (creative.type !== "linear") continue;
      const files: Any[] = creative.mediaFiles ?? [];
      const file = files.find(
        (f) => f.fileURL && (!f.mimeType || video.canPlayType(f.mimeType) !== ""),
      );
      if (file) return { ad, creative, file };
    }
  }
  return null;
}

/** The VAST response of a break: its document in hand, its tag, or the player's tag again. */
export async function vastOf(
  source: BreakSource,
  retag: () => string | null,
  timeoutMs: number,
  client: Any,
): Promise<Any> {
  const options = { timeout: timeoutMs, withCredentials: false };
  if (source.vast) {
    const doc =
      source.vast instanceof Document
        ? source.vast
        : (() => {
            const d = document.implementation.createDocument(null, null, null);
            d.appendChild(d.importNode(source.vast, true));
            return d;
          })();
    return new VASTParser().parseVAST(doc, options);
  }
  const url = source.uri ?? (source.retag ? retag() : null);
  if (!url) return null;
  return client.get(url, options);
}

/** A VAST client that keeps its capping state for this page only. */
export const vastClient = (): Any => new VASTClient(0, 0, memoryStorage() as never);

/** vast-client keeps capping state in a Storage; the player keeps none across pages. */
function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => {
      map.delete(k);
    },
    setItem: (k, v) => {
      map.set(k, String(v));
    },
  };
}
