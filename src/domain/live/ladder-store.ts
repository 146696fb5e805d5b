// A live stream's ladder in its Durable Object (docs/live.md "A ladder while live"): the plan
// (the rungs, made by the stream's first rung job from its picture and the organization's
// ladder) and which segments each rung has, in the object's SQLite storage; and from them the
// viewers' master playlist and rung playlists over the same window as the source's.
import {
  bitRates,
  LIVE_RUNG_PLAYLIST,
  type MasterVariant,
  renderLiveMaster,
  rungFileName,
  rungPlaylistName,
} from "../../media/packaging/hls/live-ladder";
import { type LiveSegment, renderLivePlaylist } from "../../media/packaging/hls/live-playlist";
import type { LiveLadderPlan, LiveRungStatus } from "../../shared/bindings";
import { LIVE_MASTER, LIVE_PLAYLIST } from "../../storage/layout";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS ladder (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS rung_segments (rung TEXT NOT NULL, seq INTEGER NOT NULL,
    bytes INTEGER NOT NULL, stored_at INTEGER NOT NULL, PRIMARY KEY (rung, seq))`,
];

/** A segment of the viewers' window, as the ladder needs it. */
export interface WindowSegment extends LiveSegment {
  bytes: number;
  /** When the encoder's playlist listed it (ms). */
  receivedAt: number;
}

/**
 * How late a rung's segment may be before the rung's playlist marks it a gap (players then take
 * it from another variant): three of its durations, at least 6 s.
 */
export const rungGraceMs = (duration: number) => Math.max(3 * duration, 6) * 1000;
/** A rung this many segments behind the source's live edge leaves the master playlist. */
export const RUNG_BEHIND_SEGMENTS = 4;

export class LiveLadderStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The tables exist (created on first use: streams set up before the ladder have none). */
  private ready(): SqlStorage {
    for (const statement of SCHEMA) this.sql.exec(statement);
    return this.sql;
  }

  plan(): LiveLadderPlan | null {
    const row = this.ready().exec("SELECT plan FROM ladder WHERE id = 1").toArray()[0];
    return row ? (JSON.parse(row.plan as string) as LiveLadderPlan) : null;
  }

  /** Keeps `plan` unless one is kept already; the plan kept. */
  keepPlan(plan: LiveLadderPlan): LiveLadderPlan {
    this.ready().exec(
      "INSERT OR IGNORE INTO ladder (id, plan) VALUES (1, ?)",
      JSON.stringify(plan),
    );
    return this.plan()!;
  }

  stored(seq: number, bytes: Record<string, number>, now: number): void {
    const sql = this.ready();
    for (const [rung, size] of Object.entries(bytes))
      sql.exec(
        `INSERT INTO rung_segments (rung, seq, bytes, stored_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (rung, seq) DO UPDATE SET bytes = excluded.bytes`,
        rung,
        seq,
        size,
        now,
      );
  }

  /**
   * Each planned rung's progress; its lag measured against the stream's `segments` table (the
   * source's listing times) over the last 60 segments.
   */
  status(): LiveRungStatus[] {
    const plan = this.plan();
    if (!plan) return [];
    const sql = this.ready();
    const counts = new Map(
      sql
        .exec("SELECT rung, count(*) AS n FROM rung_segments GROUP BY rung")
        .toArray()
        .map((r) => [r.rung as string, r.n as number]),
    );
    const lags = new Map<string, number[]>();
    for (const r of sql
      .exec(
        `SELECT r.rung AS rung, r.stored_at - s.received_at AS lag FROM rung_segments r
         JOIN segments s ON s.seq = r.seq
         WHERE r.seq > (SELECT coalesce(max(seq), 0) FROM segments) - 60`,
      )
      .toArray())
      lags.set(r.rung as string, [...(lags.get(r.rung as string) ?? []), (r.lag as number) / 1000]);
    return plan.rungs.map((rung) => {
      const seconds = (lags.get(rung.name) ?? []).sort((a, b) => a - b);
      return {
        name: rung.name,
        width: rung.width,
        height: rung.height,
        segments: counts.get(rung.name) ?? 0,
        lagSeconds: seconds.length
          ? { median: seconds[Math.floor(seconds.length / 2)]!, max: seconds.at(-1)! }
          : null,
      };
    });
  }

  /** A rung's segments from `fromSeq` on: their sizes by sequence number. */
  private segmentsOf(rung: string, fromSeq: number): Map<number, number> {
    const rows = this.ready()
      .exec("SELECT seq, bytes FROM rung_segments WHERE rung = ? AND seq >= ?", rung, fromSeq)
      .toArray();
    return new Map(rows.map((r) => [r.seq as number, r.bytes as number]));
  }

  /**
   * master.m3u8 or a rung's playlist over the viewers' window (`segments`, in order); null for a
   * rung the stream has not.
   */
  playlist(
    file: string,
    window: { segments: WindowSegment[]; discontinuitySequence: number; ended: boolean },
    now: number,
  ): string | null {
    const plan = this.plan();
    const first = window.segments[0]?.seq ?? 0;
    if (file === LIVE_MASTER) return this.master(plan, window.segments, window.ended);
    const rung = LIVE_RUNG_PLAYLIST.exec(file)?.[1];
    if (!rung || !plan?.rungs.some((r) => r.name === rung)) return null;
    const have = this.segmentsOf(rung, first);
    const newest = Math.max(-1, ...have.keys());
    const segments: LiveSegment[] = [];
    for (const s of window.segments) {
      const present = have.has(s.seq);
      const late = window.ended || s.seq < newest || now - s.receivedAt > rungGraceMs(s.duration);
      // The rung's live edge: the first segment still being made.
      if (!present && !late) break;
      segments.push({
        seq: s.seq,
        file: rungFileName(rung, s.file),
        duration: s.duration,
        map: s.map && rungFileName(rung, s.map),
        discontinuity: s.discontinuity,
        programDateTime: s.programDateTime,
        gap: !present,
      });
    }
    // Nothing yet (or only gaps past the window's start): the source's first segment is late.
    if (segments.length === 0) return null;
    return renderLivePlaylist(segments, {
      ended: window.ended,
      discontinuitySequence: window.discontinuitySequence,
    });
  }

  /**
   * The source first (its playlist, its measured bit rates, its picture), then each rung that
   * exists: with a segment in the window and, while live, at most RUNG_BEHIND_SEGMENTS behind.
   */
  private master(
    plan: LiveLadderPlan | null,
    window: WindowSegment[],
    ended: boolean,
  ): string | null {
    if (window.length === 0) return null;
    // Bit rates over the window's last minute or so (a long DVR window is not read twice).
    const recent = window.slice(-60);
    const source = bitRates(recent);
    const variants: MasterVariant[] = [
      {
        uri: LIVE_PLAYLIST,
        bandwidth: source.peak,
        averageBandwidth: source.average,
        width: plan?.source.width ?? null,
        height: plan?.source.height ?? null,
      },
    ];
    const last = window.at(-1)!.seq;
    for (const rung of plan?.rungs ?? []) {
      const have = this.segmentsOf(rung.name, recent[0]!.seq);
      if (have.size === 0) continue;
      if (!ended && Math.max(...have.keys()) < last - RUNG_BEHIND_SEGMENTS) continue;
      const rates = bitRates(
        recent.filter((s) => have.has(s.seq)).map((s) => ({ ...s, bytes: have.get(s.seq)! })),
      );
      variants.push({
        uri: rungPlaylistName(rung.name),
        bandwidth: rates.peak,
        averageBandwidth: rates.average,
        width: rung.width,
        height: rung.height,
      });
    }
    return renderLiveMaster(variants);
  }
}
