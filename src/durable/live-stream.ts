// One Durable Object per live stream (docs/live.md), named by its content key: the one place
// that coordinates the stream's state, kept in its own SQLite storage — the stream key's hash,
// every file stored for it and the encoder's name for each, the DVR list (every segment in
// order, with the service's media sequence), the encoder's last heartbeat — rather than in D1
// rows written per segment. The worker decides who may send before it reads a body
// (domain/live/ingest.ts), then streams each file into R2 itself: this object gives the file its
// stored name and a byte budget first (announceFile), and takes it, by its digest, once stored
// (fileStored). No body passes through it. It answers the live playlist on an edge-cache miss;
// its alarm ends a silent or never-started stream and deletes files no playlist named; on the
// end it writes the recording and tells the catalog (domain/live/lifecycle.ts), which moves the
// record from live to a video on demand.
import { DurableObject } from "cloudflare:workers";
import { backgroundDeps } from "../domain/background";
import { queueLiveRungJobs, transcodable } from "../domain/live/ladder";
import { LiveLadderStore, type WindowSegment } from "../domain/live/ladder-store";
import { announceLiveEnded, announceLiveStarted } from "../domain/live/lifecycle";
import {
  type FileAnnounced,
  type FileSlot,
  type FileStored,
  type IngestAnswer,
  LIVE_BOUNDS,
  type LiveLadderPlan,
  type LiveRungSource,
  type LiveStatus,
  type LiveStreamRpc,
  type LiveStreamSetup,
  type LiveTimeline,
  type RecordingFile,
  type RecordingParts,
  type RecordingRun,
} from "../domain/live/objects";
import {
  type BlockingReload,
  deltaStart,
  parsePartFile,
  partFile,
  reloadState,
  withLowLatency,
} from "../domain/live/parts";
import { renditionQueueOf } from "../domain/renditions";
import type { Env } from "../env";
import {
  dvrWindow,
  ENCODER_PLAYLIST_MAX_BYTES,
  type LiveSegment,
  PlaylistError,
  parseEncoderPlaylist,
  renderLivePlaylist,
  WINDOW_MAX_SEGMENTS,
} from "../media/packaging/hls/live-playlist";
import type { LowLatencyInit, LowLatencyPart } from "../shared/bindings";
import { constantTimeEqual } from "../shared/crypto";
import type { LiveState } from "../shared/vocabulary";
import { liveObjectKey, liveObjectPrefix, RECORDING_PLAYLIST } from "../storage/layout";
import { LowLatencyParts, PARTS_SCHEMA, SEGMENTS_WITH_PARTS } from "./live-parts";

interface StreamRow {
  content_id: number;
  content_key: string;
  key_hash: string;
  state: LiveState;
  /** What the catalog (D1) has been told: start and end are announced once each. */
  announced: LiveState;
  dvr_seconds: number;
  timeout_seconds: number;
  segment_max_bytes: number;
  /** The most bytes the stream stores in all; 0 for a stream set up before the limit. */
  max_bytes: number;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  end_reason: string | null;
  last_heartbeat: number | null;
  next_file: number;
  encoder_sequence: number | null;
  /**
   * A playlist with ENDLIST that listed files not received yet (ffmpeg PUTs its last playlist
   * before its last segment): taken again as they arrive; the stream ends once it is whole, or
   * at the heartbeat timeout.
   */
  pending_end: string | null;
}

interface SegmentRow {
  seq: number;
  file: string;
  duration: number;
  map: string | null;
  discontinuity: number;
  pdt: string | null;
  bytes: number;
  received_at: number;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS stream (
    id INTEGER PRIMARY KEY CHECK (id = 1), content_id INTEGER NOT NULL, content_key TEXT NOT NULL,
    key_hash TEXT NOT NULL, state TEXT NOT NULL, announced TEXT NOT NULL,
    dvr_seconds INTEGER NOT NULL, timeout_seconds INTEGER NOT NULL, segment_max_bytes INTEGER NOT NULL,
    max_bytes INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, started_at INTEGER, ended_at INTEGER, end_reason TEXT,
    last_heartbeat INTEGER, next_file INTEGER NOT NULL DEFAULT 0, encoder_sequence INTEGER,
    pending_end TEXT)`,
  // The encoder's file names and the stored file each now stands for (a name written again with
  // other bytes, e.g. by a restarted encoder, gets a new stored file).
  `CREATE TABLE IF NOT EXISTS objects (name TEXT PRIMARY KEY, file TEXT NOT NULL,
    digest TEXT NOT NULL, bytes INTEGER NOT NULL)`,
  // Every stored file, counted: `listed` once a playlist named it (as a segment or an init
  // segment); one no playlist names within LIVE_BOUNDS.unlistedFileMs is deleted.
  `CREATE TABLE IF NOT EXISTS files (file TEXT PRIMARY KEY, bytes INTEGER NOT NULL,
    received_at INTEGER NOT NULL, listed INTEGER NOT NULL DEFAULT 0)`,
  "CREATE INDEX IF NOT EXISTS files_unlisted ON files (received_at) WHERE listed = 0",
  // Files the worker is streaming into R2 now, by the stored name they were given.
  `CREATE TABLE IF NOT EXISTS writes (file TEXT PRIMARY KEY, name TEXT NOT NULL,
    declared INTEGER, reserved_at INTEGER NOT NULL)`,
  // The DVR list and the recording: every segment the encoder listed, in order.
  `CREATE TABLE IF NOT EXISTS segments (seq INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE,
    duration REAL NOT NULL, map TEXT, discontinuity INTEGER NOT NULL, pdt TEXT,
    bytes INTEGER NOT NULL, received_at INTEGER NOT NULL)`,
  ...PARTS_SCHEMA,
];

const extensionOf = (name: string) => name.slice(name.lastIndexOf("."));
const answer = (status: number, message: string): IngestAnswer => ({ status, message });
const WRONG_KEY = "wrong stream key: use the ingest URL the API gave (or rotated) last";
const NO_STREAM = "no live stream under this content key";
const ENDED = "this live stream has ended: create a new one to go live again";

export class LiveStream extends DurableObject<Env> implements LiveStreamRpc {
  /** The time, in ms (tests replace it: the heartbeat timeout runs on an injected clock). */
  clock: () => number = () => Date.now();
  /** Viewers' playlist reads that reached this object since it started (not stored: for tests). */
  playlistReads = 0;
  /** Segments listed since the last rung jobs were queued (docs/live.md "A ladder while live"). */
  private listedForRungs: number[] = [];
  /** Partial segments of chunked CMAF segments and the viewers waiting for them (LL-HLS). */
  private readonly ll: LowLatencyParts;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ll = new LowLatencyParts(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => this.upgrade());
  }

  private get sql() {
    return this.ctx.storage.sql;
  }

  private get ladder() {
    return new LiveLadderStore(this.sql);
  }

  private hasTable(name: string): boolean {
    return (
      this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray()
        .length > 0
    );
  }

  private hasStream(): boolean {
    return this.hasTable("stream");
  }

  /** A stream set up before files, writes and max_bytes were kept: its tables brought up to date. */
  private upgrade(): void {
    if (this.hasStream() && this.hasTable("files")) {
      for (const statement of PARTS_SCHEMA) this.sql.exec(statement);
      return;
    }
    if (!this.hasStream()) return;
    const table = this.sql
      .exec("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'stream'")
      .one().sql as string;
    // (Not segment_max_bytes.)
    if (!/\bmax_bytes\b/.test(table))
      this.sql.exec("ALTER TABLE stream ADD COLUMN max_bytes INTEGER NOT NULL DEFAULT 0");
    for (const statement of SCHEMA) this.sql.exec(statement);
    // Its stored files: those the DVR list holds (listed), then the current ones of each name.
    this.sql.exec(
      `INSERT OR IGNORE INTO files (file, bytes, received_at, listed)
       SELECT file, bytes, received_at, 1 FROM segments`,
    );
    this.sql.exec(
      `INSERT OR IGNORE INTO files (file, bytes, received_at, listed)
       SELECT o.file, o.bytes, 0, EXISTS (SELECT 1 FROM segments s WHERE s.map = o.file) FROM objects o`,
    );
  }

  /** The stream's row, or null when this object was never set up (an unknown content key). */
  private row(): StreamRow | null {
    if (!this.hasStream()) return null;
    return (
      (this.sql.exec("SELECT * FROM stream WHERE id = 1").toArray()[0] as unknown as StreamRow) ??
      null
    );
  }

  private update(changes: Partial<StreamRow>): void {
    const names = Object.keys(changes);
    if (names.length === 0) return;
    this.sql.exec(
      `UPDATE stream SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE id = 1`,
      ...Object.values(changes),
    );
  }

  /** The stream's row when `keyHash` is its key's, else the refusal (404, 403). */
  private authorized(keyHash: string): StreamRow | IngestAnswer {
    const row = this.row();
    if (!row) return answer(404, NO_STREAM);
    if (!constantTimeEqual(keyHash, row.key_hash)) return answer(403, WRONG_KEY);
    return row;
  }

  /** A new live stream under this content key: any earlier one's state is dropped. */
  async setup(init: LiveStreamSetup): Promise<void> {
    await this.ctx.storage.deleteAll();
    for (const statement of SCHEMA) this.sql.exec(statement);
    const now = this.clock();
    this.sql.exec(
      `INSERT INTO stream (id, content_id, content_key, key_hash, state, announced, dvr_seconds,
        timeout_seconds, segment_max_bytes, max_bytes, created_at)
       VALUES (1, ?, ?, ?, 'idle', 'idle', ?, ?, ?, ?, ?)`,
      init.contentId,
      init.contentKey,
      init.keyHash,
      init.dvrSeconds,
      init.timeoutSeconds,
      init.segmentMaxBytes,
      init.maxBytes,
      now,
    );
    // An idle stream ends by itself (its alarm).
    await this.ctx.storage.setAlarm(now + LIVE_BOUNDS.idleStreamMs);
  }

  /** A new stream key (its hash): the old one stops working at once. */
  rotateKey(contentId: number, keyHash: string): boolean {
    const row = this.row();
    if (!row || row.content_id !== contentId) return false;
    this.update({ key_hash: keyHash });
    return true;
  }

  keyMatches(keyHash: string): boolean | null {
    const row = this.row();
    return row ? constantTimeEqual(keyHash, row.key_hash) : null;
  }

  private storedBytes(): number {
    return this.sql.exec("SELECT coalesce(sum(bytes), 0) AS b FROM files").one().b as number;
  }

  status(contentId: number): LiveStatus | null {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const totals = this.sql
      .exec("SELECT count(*) AS n, coalesce(sum(duration), 0) AS d FROM segments")
      .one() as { n: number; d: number };
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      state: row.state,
      dvrWindowSeconds: row.dvr_seconds,
      timeoutSeconds: row.timeout_seconds,
      startedAt: iso(row.started_at),
      endedAt: iso(row.ended_at),
      endReason: row.end_reason,
      lastHeartbeat: iso(row.last_heartbeat),
      segments: totals.n,
      recordedSeconds: Math.round(totals.d * 1000) / 1000,
      bytes: this.storedBytes(),
      maxBytes: row.max_bytes > 0 ? row.max_bytes : null,
      rungs: this.ladder.status(),
    };
  }

  /** The encoder's media playlist (its text, at most ENCODER_PLAYLIST_MAX_BYTES, read by the worker). */
  async takePlaylist(request: { keyHash: string; text: string }): Promise<IngestAnswer> {
    const row = this.authorized(request.keyHash);
    if ("status" in row) return row;
    if (row.state === "ended") {
      // A retried last playlist (with ENDLIST) is answered as it was; anything else is late.
      return this.repeatsEnd(request.text) ? answer(200, "ended") : answer(409, ENDED);
    }
    if (request.text.length > ENCODER_PLAYLIST_MAX_BYTES)
      return answer(413, `a playlist is at most ${ENCODER_PLAYLIST_MAX_BYTES} bytes`);
    const now = this.clock();
    let outcome: IngestAnswer;
    try {
      outcome = this.readPlaylist(row, request.text, now);
    } catch (err) {
      if (err instanceof PlaylistError) return answer(400, err.message);
      throw err;
    }
    await this.announce();
    await this.scheduleAlarm();
    await this.queueRungJobs();
    return outcome;
  }

  /**
   * A file the worker is about to stream into R2: the stored name it goes under and how many
   * bytes it may have (the segment limit, or what is left of the stream's), or the refusal.
   * Before any byte of it is read.
   */
  async announceFile(request: FileAnnounced): Promise<FileSlot | IngestAnswer> {
    const row = this.authorized(request.keyHash);
    if ("status" in row) return row;
    if (row.state === "ended") return answer(409, ENDED);
    if (request.declared === 0) return answer(400, "an empty segment");
    if (request.declared !== null && request.declared > row.segment_max_bytes)
      return answer(413, segmentTooLarge(row.segment_max_bytes));
    const writes = this.sql
      .exec("SELECT count(*) AS n, coalesce(sum(declared), 0) AS b FROM writes")
      .one() as { n: number; b: number };
    if (writes.n >= LIVE_BOUNDS.writesInFlight)
      return answer(
        429,
        `at most ${LIVE_BOUNDS.writesInFlight} files of a stream are written at once: send this one again when one is stored`,
      );
    const now = this.clock();
    const left =
      row.max_bytes > 0 ? row.max_bytes - this.storedBytes() - writes.b : Number.POSITIVE_INFINITY;
    if (left <= 0 || (request.declared !== null && request.declared > left))
      return this.storageFull(row, now);
    // The number is taken before the write, so two writes in flight never share one.
    const file = `u${row.next_file}${extensionOf(request.name)}`;
    this.update({ next_file: row.next_file + 1 });
    this.sql.exec(
      "INSERT INTO writes (file, name, declared, reserved_at) VALUES (?, ?, ?, ?)",
      file,
      request.name,
      request.declared,
      now,
    );
    await this.alarmBy(now + LIVE_BOUNDS.writeMs);
    return { status: 100, file, maxBytes: Math.min(row.segment_max_bytes, left) };
  }

  /**
   * The announced file is in R2: new bytes become the name's stored file (201); the same bytes
   * as the name's stored file change nothing (the new copy is deleted here). A refusal leaves
   * the copy to the worker to delete.
   */
  async fileStored(request: FileStored): Promise<IngestAnswer> {
    return this.storeFile(request);
  }

  /** fileStored; `stored` runs once new bytes are the name's file (a chunked segment joins the DVR list there). */
  private async storeFile(
    request: FileStored,
    stored?: (row: StreamRow, now: number) => void,
  ): Promise<IngestAnswer> {
    const announced = this.endWrite(request.file);
    const row = this.authorized(request.keyHash);
    if ("status" in row) return row;
    if (!announced || announced.name !== request.name)
      return answer(
        409,
        `the file took longer than ${LIVE_BOUNDS.writeMs / 60_000} minutes to arrive: send it again`,
      );
    if (row.state === "ended") return answer(409, ENDED);
    if (request.bytes === 0) return answer(400, "an empty segment");
    const now = this.clock();
    const known = this.sql
      .exec("SELECT file, digest FROM objects WHERE name = ?", request.name)
      .toArray()[0] as { file: string; digest: string } | undefined;
    if (known?.digest === request.sha256) {
      await this.env.MEDIA.delete(liveObjectKey(row.content_key, row.content_id, request.file));
    } else {
      if (row.max_bytes > 0 && this.storedBytes() + request.bytes > row.max_bytes)
        return this.storageFull(row, now);
      this.sql.exec(
        "INSERT INTO files (file, bytes, received_at, listed) VALUES (?, ?, ?, 0)",
        request.file,
        request.bytes,
        now,
      );
      this.sql.exec(
        `INSERT INTO objects (name, file, digest, bytes) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET file = excluded.file, digest = excluded.digest, bytes = excluded.bytes`,
        request.name,
        request.file,
        request.sha256,
        request.bytes,
      );
      // The name's earlier file, if no playlist named it, is no one's any more.
      if (known) await this.dropUnlisted([known.file]);
      stored?.(row, now);
    }
    this.update({ last_heartbeat: now });
    const pending = this.row()!;
    if (pending.pending_end !== null) {
      this.readPlaylist(pending, pending.pending_end, now);
      await this.announce();
      await this.queueRungJobs();
    }
    await this.scheduleAlarm();
    return answer(201, "");
  }

  /**
   * The announced file was not stored (the worker stored nothing of it): its slot is free
   * again; past its byte budget, 413, and when the budget was what is left of the stream's
   * storage, the stream ends.
   */
  async fileAbandoned(request: {
    keyHash: string;
    file: string;
    tooLarge: boolean;
  }): Promise<IngestAnswer> {
    this.endWrite(request.file);
    const row = this.authorized(request.keyHash);
    if ("status" in row) return row;
    if (!request.tooLarge) return answer(400, "the file did not arrive whole");
    const left = row.max_bytes > 0 ? row.max_bytes - this.storedBytes() : Infinity;
    if (left < row.segment_max_bytes) return this.storageFull(row, this.clock());
    return answer(413, segmentTooLarge(row.segment_max_bytes));
  }

  /** A write is over (its slot free again): what it was announced as, if this stream still has it. */
  private endWrite(file: string): { name: string } | undefined {
    if (!this.hasStream()) return undefined;
    return this.sql.exec("DELETE FROM writes WHERE file = ? RETURNING name", file).toArray()[0] as
      | { name: string }
      | undefined;
  }

  /** The stream reached its storage limit: it ends (413 to the file that did not fit). */
  private async storageFull(row: StreamRow, now: number): Promise<IngestAnswer> {
    const reason = `the stream reached its storage limit of ${row.max_bytes} bytes (the organization's plan)`;
    if (row.state !== "ended") {
      this.update({
        state: "ended",
        ended_at: now,
        end_reason: reason,
      });
      await this.announce();
      await this.scheduleAlarm();
    }
    return answer(
      413,
      `${reason}: it stores ${this.storedBytes()} bytes, so this file does not fit; the stream has ended`,
    );
  }

  /** The encoder's playlist: new segments join the DVR list; ENDLIST ends the stream. */
  private readPlaylist(row: StreamRow, text: string, now: number, force = false): IngestAnswer {
    const playlist = parseEncoderPlaylist(text);
    const restarted =
      row.encoder_sequence !== null && playlist.mediaSequence < row.encoder_sequence;
    let added = 0;
    let missing = 0;
    let full = false;
    let lastSeq = this.sql.exec("SELECT coalesce(max(seq), -1) AS s FROM segments").one()
      .s as number;
    let first = true;
    for (const segment of playlist.segments) {
      const stored = this.sql
        .exec("SELECT file, bytes FROM objects WHERE name = ?", segment.name)
        .toArray()[0] as { file: string; bytes: number } | undefined;
      if (!stored) {
        missing++;
        continue;
      }
      if (this.sql.exec("SELECT 1 FROM segments WHERE file = ?", stored.file).toArray().length) {
        first = false;
        continue;
      }
      const map = segment.map
        ? ((this.sql.exec("SELECT file FROM objects WHERE name = ?", segment.map).toArray()[0]
            ?.file as string | undefined) ?? null)
        : null;
      if (segment.map && map === null) {
        missing++;
        continue;
      }
      if (lastSeq + 1 >= LIVE_BOUNDS.maxSegments) {
        full = true;
        break;
      }
      lastSeq++;
      this.sql.exec(
        `INSERT INTO segments (seq, file, duration, map, discontinuity, pdt, bytes, received_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        lastSeq,
        stored.file,
        segment.duration,
        map,
        segment.discontinuity || (restarted && first) ? 1 : 0,
        segment.programDateTime ?? new Date(now).toISOString(),
        stored.bytes,
        now,
      );
      this.sql.exec("UPDATE files SET listed = 1 WHERE file IN (?, ?)", stored.file, map);
      if (transcodable({ file: stored.file, map })) this.listedForRungs.push(lastSeq);
      added++;
      first = false;
    }
    const changes: Partial<StreamRow> = {
      encoder_sequence: playlist.mediaSequence,
      last_heartbeat: now,
      pending_end: null,
    };
    if (row.state === "idle" && lastSeq >= 0) {
      changes.state = "live";
      changes.started_at = now;
    }
    if (full) {
      changes.state = "ended";
      changes.ended_at = now;
      changes.end_reason = `the recording reached ${LIVE_BOUNDS.maxSegments} segments`;
      changes.started_at ??= row.started_at ?? now;
    } else if (playlist.ended && missing > 0 && !force) {
      changes.pending_end = text;
    } else if (playlist.ended && (row.state !== "idle" || lastSeq >= 0)) {
      changes.state = "ended";
      changes.ended_at = now;
      changes.end_reason = "the encoder ended the stream (EXT-X-ENDLIST)";
      changes.started_at ??= row.started_at ?? now;
    }
    this.update(changes);
    const note = missing ? `; ${missing} listed file(s) not received yet` : "";
    return answer(200, `${added} new segment(s)${note}`);
  }

  /** A playlist with ENDLIST whose segments are all in the recording: a retry of the last one. */
  private repeatsEnd(text: string): boolean {
    try {
      return parseEncoderPlaylist(text).ended;
    } catch {
      return false;
    }
  }

  /** Deletes the stored files given that no playlist named (others are the recording's). */
  private async dropUnlisted(files: string[]): Promise<void> {
    const row = this.row()!;
    const dropped: string[] = [];
    for (const file of files) {
      const gone = this.sql
        .exec("DELETE FROM files WHERE file = ? AND listed = 0 RETURNING file", file)
        .toArray();
      if (gone.length === 0) continue;
      this.sql.exec("DELETE FROM objects WHERE file = ?", file);
      dropped.push(liveObjectKey(row.content_key, row.content_id, file));
    }
    for (let i = 0; i < dropped.length; i += 1000)
      await this.env.MEDIA.delete(dropped.slice(i, i + 1000));
  }

  /** The alarm fires by `at` at the latest. */
  private async alarmBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /**
   * The alarm at the earliest of what is due: the heartbeat timeout (live), the idle timeout
   * (idle), the oldest unnamed file's and the oldest write's bound; none once nothing is.
   */
  /**
   * When the encoder's silence ends a live stream: its timeout, or sooner once its ENDLIST waits
   * for files it listed (ffmpeg stopped, or a last segment was lost on the way): the recording
   * then ends with what came, rather than the stream staying live until the timeout.
   */
  private silenceEnds(row: StreamRow): number {
    const silence =
      row.pending_end === null
        ? row.timeout_seconds * 1000
        : Math.min(row.timeout_seconds * 1000, LIVE_BOUNDS.pendingEndMs);
    return (row.last_heartbeat ?? row.created_at) + silence;
  }

  private async scheduleAlarm(): Promise<void> {
    const row = this.row();
    if (!row) return;
    const due: number[] = [];
    if (row.state === "live") due.push(this.silenceEnds(row));
    if (row.state === "idle") due.push(row.created_at + LIVE_BOUNDS.idleStreamMs);
    const oldest = this.sql
      .exec(
        `SELECT (SELECT min(received_at) FROM files WHERE listed = 0) AS f,
                (SELECT min(reserved_at) FROM writes) AS w`,
      )
      .one() as { f: number | null; w: number | null };
    if (oldest.f !== null) due.push(oldest.f + LIVE_BOUNDS.unlistedFileMs);
    if (oldest.w !== null) due.push(oldest.w + LIVE_BOUNDS.writeMs);
    if (due.length === 0) return this.ctx.storage.deleteAlarm();
    await this.ctx.storage.setAlarm(Math.min(...due));
  }

  /**
   * What is due now: files no playlist named in time and writes that never finished are
   * deleted; a live stream silent for timeout_seconds ends (heartbeat timeout), as does an idle
   * one LIVE_BOUNDS.idleStreamMs after its creation.
   */
  override async alarm(): Promise<void> {
    const row = this.row();
    if (!row) return;
    const now = this.clock();
    const unnamed = this.sql
      .exec(
        "SELECT file FROM files WHERE listed = 0 AND received_at <= ?",
        now - LIVE_BOUNDS.unlistedFileMs,
      )
      .toArray()
      .map((r) => r.file as string);
    await this.dropUnlisted(unnamed);
    const abandoned = this.sql
      .exec("DELETE FROM writes WHERE reserved_at <= ? RETURNING file", now - LIVE_BOUNDS.writeMs)
      .toArray()
      .map((r) => liveObjectKey(row.content_key, row.content_id, r.file as string));
    if (abandoned.length) await this.env.MEDIA.delete(abandoned);

    if (row.state === "idle" && now >= row.created_at + LIVE_BOUNDS.idleStreamMs) {
      this.update({
        state: "ended",
        ended_at: now,
        end_reason: `the encoder never went live within ${LIVE_BOUNDS.idleStreamMs / 3_600_000} h of the stream's creation (idle timeout)`,
      });
    } else if (row.state === "live") {
      if (now >= this.silenceEnds(row)) {
        if (row.pending_end !== null) {
          // The encoder ended with files it never sent: the recording ends with what came.
          this.readPlaylist(row, row.pending_end, row.last_heartbeat ?? now, true);
        } else {
          this.update({
            state: "ended",
            ended_at: now,
            end_reason: `no data from the encoder for ${row.timeout_seconds} s (heartbeat timeout)`,
          });
        }
      }
    }
    await this.announce();
    await this.scheduleAlarm();
    await this.queueRungJobs();
  }

  /** Ends the stream now (the publisher's API call): as ENDLIST would. */
  async end(contentId: number): Promise<LiveStatus | null> {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    if (row.state !== "ended") {
      const now = this.clock();
      this.update({
        state: "ended",
        ended_at: now,
        started_at: row.started_at ?? now,
        end_reason: "ended through the API",
      });
      await this.announce();
      await this.scheduleAlarm();
    }
    return this.status(contentId);
  }

  /** Tells the catalog what it does not know yet: the start, then the end (with the recording). */
  private async announce(): Promise<void> {
    let row = this.row();
    if (!row || row.announced === row.state) return;
    const now = this.clock();
    const { deps } = backgroundDeps(
      this.env,
      new Date(now),
      () => this.clock(),
      (work) => this.ctx.waitUntil(work),
    );
    const target = { contentId: row.content_id, contentKey: row.content_key };
    if (row.announced === "idle" && row.state !== "idle") {
      if (this.segmentCount() > 0) await announceLiveStarted(deps, target);
      this.update({ announced: "live" });
      row = this.row()!;
    }
    if (row.state === "ended" && row.announced !== "ended") {
      // What no playlist named is not part of the recording: it goes now.
      await this.dropUnlisted(
        this.sql
          .exec("SELECT file FROM files WHERE listed = 0")
          .toArray()
          .map((r) => r.file as string),
      );
      const segments = this.segments();
      if (segments.length > 0) {
        await this.env.MEDIA.put(
          liveObjectKey(row.content_key, row.content_id, RECORDING_PLAYLIST),
          renderLivePlaylist(segments, { ended: true, discontinuitySequence: 0 }),
          { httpMetadata: { contentType: "application/vnd.apple.mpegurl" } },
        );
      }
      // The thumbnail's source: a segment a tenth of the way in, with its init (fMP4), or
      // alone (MPEG-TS: its first keyframe is made an MP4, which the frame services take).
      const pick = segments[Math.floor(segments.length / 10)];
      const key = (file: string) => liveObjectKey(row!.content_key, row!.content_id, file);
      let durationSeconds = 0;
      for (const s of segments) durationSeconds += s.duration;
      await announceLiveEnded(deps, target, {
        durationSeconds,
        segments: segments.length,
        reason: row.end_reason ?? "ended",
        recording: segments.length > 0,
        thumbnailFrom: pick?.map
          ? { init: key(pick.map), segment: key(pick.file) }
          : pick?.file.endsWith(".ts")
            ? { init: null, segment: key(pick.file) }
            : null,
      });
      this.update({ announced: "ended" });
    }
  }

  private segmentCount(): number {
    return this.sql.exec("SELECT count(*) AS n FROM segments").one().n as number;
  }

  private toSegment(r: Record<string, SqlStorageValue>): LiveSegment {
    const s = r as unknown as SegmentRow;
    return {
      seq: s.seq,
      file: s.file,
      duration: s.duration,
      map: s.map,
      discontinuity: s.discontinuity === 1,
      programDateTime: s.pdt,
    };
  }

  private segments(): LiveSegment[] {
    return this.sql
      .exec("SELECT * FROM segments ORDER BY seq")
      .toArray()
      .map((r) => this.toSegment(r));
  }

  /**
   * The viewers' playlist (asked on an edge-cache miss): the DVR window while live, read from
   * the list's last WINDOW_MAX_SEGMENTS rows only; the whole recording with ENDLIST once ended;
   * null before the first segment.
   */
  playlist(contentId: number, delta = false): string | null {
    this.playlistReads++;
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const window = this.viewerWindow(row);
    if (!window) return null;
    if (window.ended || !this.ll.active()) return renderLivePlaylist(window.segments, window);
    const { segments, discontinuitySequence } = window;
    const tail = this.ll.tail(
      segments.map((s) => s.file),
      this.buildingFile(),
      `u${row.next_file}.m4s`,
    );
    // A delta update (_HLS_skip=YES) leaves out what is older than the skip boundary.
    let target = 1;
    for (const s of segments) target = Math.max(target, Math.ceil(s.duration));
    const first = delta
      ? deltaStart(
          segments.map((s) => s.duration),
          target,
        )
      : 0;
    return withLowLatency(
      renderLivePlaylist(segments.slice(first), { ended: false, discontinuitySequence }),
      tail,
      first > 0 ? { segments: first, firstSeq: segments[0]!.seq } : null,
    );
  }

  /** The segments viewers see (above), with the discontinuities before them; null if none. */
  private viewerWindow(row: StreamRow) {
    const toWindow = (r: Record<string, SqlStorageValue>): WindowSegment => ({
      ...this.toSegment(r),
      bytes: r.bytes as number,
      receivedAt: r.received_at as number,
    });
    if (row.state === "ended") {
      const segments = this.sql.exec("SELECT * FROM segments ORDER BY seq").toArray().map(toWindow);
      return segments.length ? { segments, ended: true, discontinuitySequence: 0 } : null;
    }
    const last = this.sql
      .exec("SELECT * FROM segments ORDER BY seq DESC LIMIT ?", WINDOW_MAX_SEGMENTS)
      .toArray()
      .map(toWindow)
      .reverse();
    if (last.length === 0) return null;
    const window = last.slice(dvrWindow(last, row.dvr_seconds));
    // The discontinuities the window leaves out: those of the segments before it, and of its
    // first one (a playlist's first segment carries none); the stream's first never has one.
    const discontinuitySequence = this.sql
      .exec(
        "SELECT count(*) AS n FROM segments WHERE discontinuity = 1 AND seq > 0 AND seq <= ?",
        window[0]!.seq,
      )
      .one().n as number;
    return { segments: window, ended: false, discontinuitySequence };
  }

  /** master.m3u8 or a rung's playlist (r<h>.m3u8), over the same window as playlist(). */
  ladderPlaylist(contentId: number, file: string): string | null {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const window = this.viewerWindow(row);
    return window && this.ladder.playlist(file, window, this.clock());
  }

  /** Queues the rung jobs of the segments listed since the last call (where a transcoder runs). */
  private async queueRungJobs(): Promise<void> {
    const seqs = this.listedForRungs.splice(0);
    const row = this.row();
    if (!row || seqs.length === 0) return;
    await queueLiveRungJobs(
      renditionQueueOf(this.env),
      { contentId: row.content_id, contentKey: row.content_key },
      seqs,
      this.ladder.plan(),
    );
  }

  liveRungSource(contentId: number, seq: number): LiveRungSource | null {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const segment = this.sql.exec("SELECT file, map FROM segments WHERE seq = ?", seq).toArray()[0];
    if (!segment) return null;
    return {
      file: segment.file as string,
      map: segment.map as string | null,
      plan: this.ladder.plan(),
    };
  }

  livePlanned(contentId: number, plan: LiveLadderPlan): LiveLadderPlan | null {
    const row = this.row();
    return row && row.content_id === contentId ? this.ladder.keepPlan(plan) : null;
  }

  liveRungsStored(contentId: number, seq: number, bytes: Record<string, number>): boolean {
    const row = this.row();
    if (!row || row.content_id !== contentId) return false;
    this.ladder.stored(seq, bytes, this.clock());
    return true;
  }

  // ---- Low-Latency HLS: chunked CMAF segments (domain/live/parts.ts, durable/live-parts.ts) ----

  /** The chunked segment being written now: a write in flight with parts. */
  private buildingFile(): string | null {
    return (
      (this.sql
        .exec(
          "SELECT w.file FROM writes w WHERE EXISTS (SELECT 1 FROM ll_parts p WHERE p.file = w.file) ORDER BY w.reserved_at DESC LIMIT 1",
        )
        .toArray()[0]?.file as string | undefined) ?? null
    );
  }

  /** A write of this stream in flight under `file` (the worker announced it), else the refusal. */
  private writing(keyHash: string, file: string): StreamRow | IngestAnswer {
    const row = this.authorized(keyHash);
    if ("status" in row) return row;
    if (row.state === "ended") return answer(409, ENDED);
    if (!this.sql.exec("SELECT 1 FROM writes WHERE file = ?", file).toArray().length)
      return answer(
        409,
        `the file took longer than ${LIVE_BOUNDS.writeMs / 60_000} minutes to arrive: send it again`,
      );
    return row;
  }

  /** A chunked segment's init segment: its stored file, and whether the worker stores it (a new one). */
  async lowLatencyInit(
    request: LowLatencyInit,
  ): Promise<IngestAnswer & { init?: string; store?: boolean }> {
    const row = this.writing(request.keyHash, request.file);
    if ("status" in row) return row;
    const init = this.ll.init(request.sha256, request.file);
    if (init.isNew)
      this.sql.exec(
        "INSERT OR IGNORE INTO files (file, bytes, received_at, listed) VALUES (?, ?, ?, 1)",
        init.file,
        request.bytes,
        this.clock(),
      );
    return { status: 200, message: "", init: init.file, store: init.isNew };
  }

  /**
   * A part of the chunked segment being written, stored: it joins the playlist at once and
   * wakes the viewers waiting for it. Parts are counted in the stream's bytes and deleted
   * LIVE_BOUNDS.unlistedFileMs after they arrived (the whole segment stays).
   */
  async lowLatencyPart(request: LowLatencyPart): Promise<IngestAnswer> {
    const row = this.writing(request.keyHash, request.file);
    if ("status" in row) return row;
    const now = this.clock();
    this.sql.exec(
      "INSERT OR IGNORE INTO files (file, bytes, received_at, listed) VALUES (?, ?, ?, 0)",
      partFile(request.file, request.part),
      request.bytes,
      now,
    );
    this.ll.addPart(request.file, request.part, request.duration, request.independent);
    this.update({ last_heartbeat: now });
    // The first part's bound covers the segment's others (the seal re-arms the alarm).
    if (request.part === 0) await this.alarmBy(now + LIVE_BOUNDS.unlistedFileMs);
    return answer(200, "");
  }

  /** The whole chunked segment is stored: it joins the DVR list (the stream goes live with the first). */
  async lowLatencySealed(request: FileStored & { duration: number }): Promise<IngestAnswer> {
    const result = await this.storeFile(request, (row, now) => {
      const map = this.ll.initOf(request.file);
      const seq =
        (this.sql.exec("SELECT coalesce(max(seq), -1) AS s FROM segments").one().s as number) + 1;
      if (seq >= LIVE_BOUNDS.maxSegments) return;
      this.sql.exec(
        `INSERT INTO segments (seq, file, duration, map, discontinuity, pdt, bytes, received_at)
         VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
        seq,
        request.file,
        request.duration,
        map,
        new Date(now - Math.round(request.duration * 1000)).toISOString(),
        request.bytes,
        now,
      );
      this.sql.exec("UPDATE files SET listed = 1 WHERE file IN (?, ?)", request.file, map);
      if (row.state === "idle") this.update({ state: "live", started_at: now });
      // Parts are listed for the last few segments only: the rows of the segment that falls
      // further behind go (its files go at the alarm), so the table stays a few segments long.
      this.sql.exec(
        "DELETE FROM ll_parts WHERE file = (SELECT file FROM segments WHERE seq = ?)",
        seq - 2 * SEGMENTS_WITH_PARTS,
      );
    });
    this.ll.wake();
    await this.announce();
    await this.scheduleAlarm();
    return result;
  }

  /** A chunked segment that did not arrive whole: its parts leave the playlist. */
  async lowLatencyAbandoned(request: {
    keyHash: string;
    file: string;
    tooLarge: boolean;
  }): Promise<IngestAnswer> {
    const row = this.authorized(request.keyHash);
    if (!("status" in row)) {
      // Its parts are no one's: out of the playlist, the stream's bytes and R2.
      const parts = this.sql
        .exec("SELECT part FROM ll_parts WHERE file = ?", request.file)
        .toArray()
        .map((r) => partFile(request.file, r.part as number));
      await this.dropUnlisted(parts);
      this.ll.dropParts(request.file);
      this.ll.wake();
    }
    return this.fileAbandoned(request);
  }

  /** The longest a viewer's request waits for a part or segment: three target durations. */
  private holdMs(): number {
    const target = this.sql
      .exec(
        "SELECT coalesce(max(duration), 1) AS d FROM (SELECT duration FROM segments ORDER BY seq DESC LIMIT 6)",
      )
      .one().d as number;
    return 3 * Math.max(1, Math.ceil(target)) * 1000;
  }

  /**
   * The live playlist for a viewer: with a blocking reload (`_HLS_msn`, `_HLS_part`), held until
   * it holds that segment or part (at most three target durations, then as it is); 400 for one
   * more than two segments ahead. Streams without parts answer at once.
   */
  async lowLatencyPlaylist(
    contentId: number,
    reload: BlockingReload | null,
    delta = false,
  ): Promise<{ status: 200; text: string } | { status: 400; message: string } | null> {
    const row = this.row();
    if (reload && row?.content_id === contentId && row.state === "live" && this.ll.active()) {
      const state = () => {
        const lastMsn = this.sql.exec("SELECT coalesce(max(seq), -1) AS s FROM segments").one()
          .s as number;
        const building = this.buildingFile();
        const target = Math.ceil(this.holdMs() / 3000);
        return reloadState(reload, lastMsn, building ? this.ll.partCount(building) : 0, target);
      };
      const now = state();
      if (now === "too-far")
        return {
          status: 400,
          message: `_HLS_msn=${reload.msn}${reload.part === null ? "" : ` _HLS_part=${reload.part}`} is too far ahead of the live edge`,
        };
      if (now === "wait")
        await this.ll.waitFor(
          () => state() !== "wait" || this.row()?.state !== "live",
          this.holdMs(),
        );
    }
    const text = this.playlist(contentId, delta);
    return text === null ? null : { status: 200, text };
  }

  /** Waits (at most three target durations) for a part a preload hint named: whether it is stored. */
  async lowLatencyPartReady(contentId: number, part: string): Promise<boolean> {
    const row = this.row();
    const named = parsePartFile(part);
    if (!row || row.content_id !== contentId || !named || row.state !== "live") return false;
    const { file, part: index } = named;
    return this.ll
      .waitFor(
        () =>
          this.ll.hasPart(file, index) ||
          // The segment ended with fewer parts, or its write was given up: it never comes.
          (this.ll.partCount(file) > 0 &&
            !this.sql.exec("SELECT 1 FROM writes WHERE file = ?", file).toArray().length),
        this.holdMs(),
      )
      .then(() => this.ll.hasPart(file, index));
  }

  /** The ended stream's stored files in play order, for its remux (domain/live/recording-vod.ts). */
  recordingParts(contentId: number): RecordingParts | null {
    const row = this.row();
    if (!row || row.content_id !== contentId || row.state !== "ended") return null;
    const segments = this.sql
      .exec("SELECT file, map, discontinuity, bytes FROM segments ORDER BY seq")
      .toArray() as unknown as Pick<SegmentRow, "file" | "map" | "discontinuity" | "bytes">[];
    const initOf = (map: string): RecordingFile | null => {
      const bytes = this.sql.exec("SELECT bytes FROM files WHERE file = ?", map).toArray()[0]
        ?.bytes as number | undefined;
      return bytes === undefined ? null : { file: map, bytes };
    };
    const runs: RecordingRun[] = [];
    for (const [i, s] of segments.entries()) {
      const last = runs.at(-1);
      // A new timeline: the encoder marked one, or named another init segment.
      if (!last || (i > 0 && s.discontinuity === 1) || s.map !== last.map)
        runs.push({ init: s.map ? initOf(s.map) : null, map: s.map, segments: [] });
      runs.at(-1)!.segments.push({ file: s.file, bytes: s.bytes });
    }
    return { runs };
  }

  /**
   * The segments overlapping [from, to) (seconds from the stream's first segment) and the DVR
   * window, for a clip (domain/clips/cut.ts): read only; the rules of the cut are the domain's.
   */
  timeline(contentId: number, from: number, to: number): LiveTimeline | null {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const total = this.sql.exec("SELECT coalesce(sum(duration), 0) AS d FROM segments").one()
      .d as number;
    let start = 0;
    if (row.state !== "ended") {
      const last = this.sql
        .exec("SELECT seq, duration FROM segments ORDER BY seq DESC LIMIT ?", WINDOW_MAX_SEGMENTS)
        .toArray()
        .reverse() as unknown as Pick<SegmentRow, "seq" | "duration">[];
      const first = last[dvrWindow(last, row.dvr_seconds)];
      if (first)
        start = this.sql
          .exec("SELECT coalesce(sum(duration), 0) AS d FROM segments WHERE seq < ?", first.seq)
          .one().d as number;
    }
    const segments = this.sql
      .exec(
        `SELECT file, bytes, duration, map, discontinuity, at FROM
           (SELECT *, sum(duration) OVER (ORDER BY seq) - duration AS at FROM segments)
         WHERE at < ? AND at + duration > ? ORDER BY seq`,
        to,
        from,
      )
      .toArray()
      .map((r) => ({
        file: r.file as string,
        bytes: r.bytes as number,
        duration: r.duration as number,
        map: r.map as string | null,
        discontinuity: r.discontinuity === 1,
        at: r.at as number,
      }));
    const maps = [...new Set(segments.flatMap((s) => (s.map ? [s.map] : [])))];
    const inits = maps.flatMap((file) => {
      const bytes = this.sql.exec("SELECT bytes FROM files WHERE file = ?", file).toArray()[0]
        ?.bytes as number | undefined;
      return bytes === undefined ? [] : [{ file, bytes }];
    });
    return { state: row.state, window: { start, end: total }, segments, inits };
  }

  /** The stream is deleted (E5): its stored files, then its state. */
  async destroy(contentId: number): Promise<void> {
    const row = this.row();
    if (!row || row.content_id !== contentId) return;
    const prefix = liveObjectPrefix(row.content_key, row.content_id);
    for (let cursor: string | undefined; ; ) {
      const listed = await this.env.MEDIA.list({ prefix, cursor });
      if (listed.objects.length) await this.env.MEDIA.delete(listed.objects.map((o) => o.key));
      if (!listed.truncated) break;
      cursor = listed.cursor;
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}

const segmentTooLarge = (max: number) => `a file is at most ${max} bytes (LIVE_SEGMENT_MAX_BYTES)`;
