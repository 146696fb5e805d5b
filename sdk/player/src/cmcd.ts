// Quality-of-experience reports as CMCD v2 event reports (CTA-5004-B) to the service's collector
// (POST /v2/cmcd): the same reports hls.js, dash.js and Shaka Player send, made here from a
// PlayerSource, so a browser playing HLS natively (Safari, iOS) is measured too. A report per
// play-state change (ps), an error (e), and one every `interval` seconds while a view lasts (t);
// each line carries the session id (a new one per content), the content key, the time and a
// sequence number, plus the video's and the player's heights (evc-vh, evc-ph) for upscaling.
// Lines are sent in batches (text/plain: no preflight), again after a 429/5xx, and by beacon
// when the page goes. No DOM here; the service's player (embed/) imports this module too.
import type { PlayerSource, Scheduler, SourceEvent, Transport } from "./types.js";

export interface CmcdOptions {
  /** The collector, e.g. https://api.example.com/v2/cmcd?sync=<sync code>&playerId=web */
  url: string;
  contentKey: string;
  scheduler: Scheduler;
  transport: Transport;
  /** Seconds between time-interval reports (default 10). */
  interval?: number;
  onError?: (error: unknown) => void;
}

export interface CmcdReporter {
  handle(event: SourceEvent): void;
  /** New content in the same player: a new session. */
  setContent(contentKey: string): void;
  /** Sends what waits; `leaving`: by beacon, the page is going. */
  flush(leaving?: boolean): void;
  /**
   * The page is hidden (`quit` false: it may come back) or going (`quit`): reports the view's
   * state now (a time report, or quit), so the time played until here counts, and sends by beacon.
   */
  leave(quit: boolean): void;
  stop(): void;
}

/** Milliseconds lines wait to be sent together. */
const BATCH_MS = 2000;
const MAX_LINES = 200;

function sessionId(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export function createCmcdReporter(source: PlayerSource, o: CmcdOptions): CmcdReporter {
  const s = o.scheduler;
  let sid = sessionId();
  let cid = o.contentKey;
  let sn = 0;
  let sta: string | undefined;
  let started = false;
  let lines: string[] = [];
  let sending: unknown;
  let beat: unknown;

  const send = (leaving?: boolean) => {
    s.clearTimeout(sending);
    sending = undefined;
    if (!lines.length) return;
    const batch = lines.splice(0, MAX_LINES);
    const body = `${batch.join("\n")}\n`;
    const t = o.transport;
    if (leaving && t.sendBeacon?.(o.url, body)) return;
    t.fetch?.(o.url, { method: "POST", body, keepalive: true }).then(
      (r) => {
        if (r.status === 429 || r.status >= 500) again(batch);
      },
      (e) => {
        again(batch);
        o.onError?.(e);
      },
    );
    if (lines.length) schedule();
  };
  const again = (batch: string[]) => {
    lines = [...batch, ...lines].slice(-MAX_LINES * 5);
    schedule();
  };
  const schedule = () => {
    sending ??= s.setTimeout(send, BATCH_MS);
  };

  const report = (e: string, extra = "") => {
    const size = source.size?.();
    lines.push(
      `cid="${cid}",e=${e}${extra},sid="${sid}",sn=${sn++},ts=${Math.round(s.now())},v=2${
        size ? `,evc-ph=${size.player},evc-vh=${size.video}` : ""
      }`,
    );
    schedule();
  };
  // While the view lasts (not after its end or failure): a report every interval.
  const heartbeat = () => {
    beat = s.setTimeout(
      () => {
        beat = undefined;
        if (sta === "e" || sta === "f" || sta === "q") return;
        report("t", `,sta=${sta}`);
        heartbeat();
      },
      (o.interval ?? 10) * 1000,
    );
  };
  const state = (next: string) => {
    if (next === sta) return;
    sta = next;
    report("ps", `,sta=${next}`);
    if (beat === undefined) heartbeat();
  };

  return {
    handle(event) {
      const st = source.state();
      if (event === "play" && !started) state("s");
      else if (event === "playing") {
        started = true;
        state("p");
      } else if (event === "waiting") state(started ? "r" : "w");
      else if (event === "seeking" && started) state("k");
      else if (event === "seeked" && sta === "k") state(st.paused ? "a" : "p");
      else if (event === "pause" && !st.ended && sta !== "f") state("a");
      else if (event === "ended") state("e");
      else if (event === "error" && sta !== "f") {
        report("e", `,ec="${st.error ?? "error"}"`);
        state("f");
      }
    },
    leave(quit) {
      if (sta !== undefined && sta !== "e" && sta !== "f" && sta !== "q") {
        if (quit) state("q");
        else report("t", `,sta=${sta}`);
      }
      send(true);
    },
    setContent(key) {
      // The view of the content before ends here (its time played counts until now).
      if (sta !== undefined && sta !== "e" && sta !== "f" && sta !== "q") state("q");
      send();
      s.clearTimeout(beat);
      beat = undefined;
      sid = sessionId();
      cid = key;
      sn = 0;
      sta = undefined;
      started = false;
    },
    flush: send,
    stop() {
      s.clearTimeout(beat);
      s.clearTimeout(sending);
    },
  };
}
