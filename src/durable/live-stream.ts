// One Durable Object per live stream (docs/live.md), named by its content key: the one place
// that coordinates the stream's state, kept in its own SQLite storage — the stream key's hash,
// the files the encoder stored, the DVR list (every segment in order, with the service's media
// sequence), the encoder's last heartbeat — rather than in D1 rows written per segment. The
// worker hands it each authenticated ingest request (routes/live); it stores segments in R2,
// answers the live playlist on an edge-cache miss, and on ENDLIST or the heartbeat timeout (its
// alarm) writes the recording and tells the catalog (domain/live/lifecycle.ts), which moves the
// record from live to a video on demand.
import { DurableObject } from "cloudflare:workers";
import { backgroundDeps } from "../domain/background";
import { announceLiveEnded, announceLiveStarted } from "../domain/live/lifecycle";
import type {
  IngestAnswer,
  IngestRequest,
  LiveStatus,
  LiveStreamRpc,
  LiveStreamSetup,
  RecordingFile,
  RecordingParts,
  RecordingRun,
} from "../domain/live/objects";
import type { Env } from "../env";
import {
  dvrWindow,
  ENCODER_PLAYLIST_MAX_BYTES,
  isPlaylistFile,
  parseEncoderPlaylist,
  PlaylistError,
  renderLivePlaylist,
  type LiveSegment,
} from "../media/packaging/hls/live-playlist";
import { constantTimeEqual, sha256Hex } from "../shared/crypto";
import { liveObjectKey, liveObjectPrefix, RECORDING_PLAYLIST } from "../storage/layout";
import type { LiveState } from "../shared/vocabulary";

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
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS stream (
    id INTEGER PRIMARY KEY CHECK (id = 1), content_id INTEGER NOT NULL, content_key TEXT NOT NULL,
    key_hash TEXT NOT NULL, state TEXT NOT NULL, announced TEXT NOT NULL,
    dvr_seconds INTEGER NOT NULL, timeout_seconds INTEGER NOT NULL, segment_max_bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL, started_at INTEGER, ended_at INTEGER, end_reason TEXT,
    last_heartbeat INTEGER, next_file INTEGER NOT NULL DEFAULT 0, encoder_sequence INTEGER,
    pending_end TEXT)`,
  // The encoder's file names and the stored file each now stands for (a name written again with
  // other bytes, e.g. by a restarted encoder, gets a new stored file; the old one stays recorded).
  `CREATE TABLE IF NOT EXISTS objects (name TEXT PRIMARY KEY, file TEXT NOT NULL,
    digest TEXT NOT NULL, bytes INTEGER NOT NULL)`,
  // The DVR list and the recording: every segment the encoder listed, in order.
  `CREATE TABLE IF NOT EXISTS segments (seq INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE,
    duration REAL NOT NULL, map TEXT, discontinuity INTEGER NOT NULL, pdt TEXT,
    bytes INTEGER NOT NULL, received_at INTEGER NOT NULL)`,
];

const extensionOf = (name: string) => name.slice(name.lastIndexOf("."));
const answer = (status: number, message: string): IngestAnswer => ({ status, message });

export class LiveStream extends DurableObject<Env> implements LiveStreamRpc {
  /** The time, in ms (tests replace it: the heartbeat timeout runs on an injected clock). */
  clock: () => number = () => Date.now();
  /** Viewers' playlist reads that reached this object since it started (not stored: for tests). */
  playlistReads = 0;

  private get sql() {
    return this.ctx.storage.sql;
  }

  /** The stream's row, or null when this object was never set up (an unknown content key). */
  private row(): StreamRow | null {
    const exists = this.sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stream'")
      .toArray().length;
    if (!exists) return null;
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

  /** A new live stream under this content key: any earlier one's state is dropped. */
  async setup(init: LiveStreamSetup): Promise<void> {
    await this.ctx.storage.deleteAll();
    for (const statement of SCHEMA) this.sql.exec(statement);
    this.sql.exec(
      `INSERT INTO stream (id, content_id, content_key, key_hash, state, announced, dvr_seconds,
        timeout_seconds, segment_max_bytes, created_at) VALUES (1, ?, ?, ?, 'idle', 'idle', ?, ?, ?, ?)`,
      init.contentId,
      init.contentKey,
      init.keyHash,
      init.dvrSeconds,
      init.timeoutSeconds,
      init.segmentMaxBytes,
      this.clock(),
    );
  }

  /** A new stream key (its hash): the old one stops working at once. */
  rotateKey(contentId: number, keyHash: string): boolean {
    const row = this.row();
    if (!row || row.content_id !== contentId) return false;
    this.update({ key_hash: keyHash });
    return true;
  }

  status(contentId: number): LiveStatus | null {
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const totals = this.sql
      .exec(
        "SELECT count(*) AS n, coalesce(sum(duration), 0) AS d, coalesce(sum(bytes), 0) AS b FROM segments",
      )
      .one() as { n: number; d: number; b: number };
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
      bytes: totals.b,
    };
  }

  /**
   * One request of the encoder, its key already hashed by the worker: PUT of a playlist or a
   * segment, DELETE of a segment. Idempotent: the same bytes again change nothing.
   */
  async ingest(request: IngestRequest): Promise<IngestAnswer> {
    const row = this.row();
    if (!row) return answer(404, "no live stream under this content key");
    if (!constantTimeEqual(request.keyHash, row.key_hash))
      return answer(403, "wrong stream key: use the ingest URL the API gave (or rotated) last");
    if (request.method === "DELETE") {
      // The recording keeps every segment: an encoder's deletion (ffmpeg -hls_flags
      // delete_segments) only says it no longer lists it.
      return answer(204, "");
    }
    const body = new Uint8Array(request.body ?? new ArrayBuffer(0));
    if (row.state === "ended") {
      // A retried last playlist (with ENDLIST) is answered as it was; anything else is late.
      if (isPlaylistFile(request.file) && this.repeatsEnd(body)) return answer(200, "ended");
      return answer(409, "this live stream has ended: create a new one to go live again");
    }
    if (body.length > row.segment_max_bytes)
      return answer(
        413,
        `a file is at most ${row.segment_max_bytes} bytes (LIVE_SEGMENT_MAX_BYTES)`,
      );
    const now = this.clock();
    if (isPlaylistFile(request.file)) {
      if (body.length > ENCODER_PLAYLIST_MAX_BYTES)
        return answer(413, `a playlist is at most ${ENCODER_PLAYLIST_MAX_BYTES} bytes`);
      let outcome: IngestAnswer;
      try {
        outcome = this.takePlaylist(row, new TextDecoder().decode(body), now);
      } catch (err) {
        if (err instanceof PlaylistError) return answer(400, err.message);
        throw err;
      }
      if (this.row()!.state === "live") await this.armTimeout(now, row.timeout_seconds);
      await this.announce();
      return outcome;
    }
    if (body.length === 0) return answer(400, "an empty segment");
    await this.storeFile(row, request.file, body);
    this.heartbeat(now);
    const pending = this.row()!;
    if (pending.pending_end !== null) {
      this.takePlaylist(pending, pending.pending_end, now);
      await this.announce();
    }
    return answer(201, "");
  }

  /** Stores an encoder's file in R2 under a file name of the service's (idempotent by its digest). */
  private async storeFile(row: StreamRow, name: string, body: Uint8Array): Promise<void> {
    const digest = await sha256Hex(body);
    const known = this.sql.exec("SELECT digest FROM objects WHERE name = ?", name).toArray()[0];
    if (known?.digest === digest) return;
    // The number is taken before the write, so two writes in flight never share one.
    const next = (this.sql.exec("SELECT next_file FROM stream").one().next_file as number) ?? 0;
    this.update({ next_file: next + 1 });
    const file = `u${next}${extensionOf(name)}`;
    await this.env.MEDIA.put(liveObjectKey(row.content_key, row.content_id, file), body, {
      httpMetadata: { contentType: name.endsWith(".ts") ? "video/mp2t" : "video/mp4" },
    });
    this.sql.exec(
      `INSERT INTO objects (name, file, digest, bytes) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET file = excluded.file, digest = excluded.digest, bytes = excluded.bytes`,
      name,
      file,
      digest,
      body.length,
    );
  }

  private heartbeat(now: number): void {
    this.update({ last_heartbeat: now });
  }

  /** The encoder's playlist: new segments join the DVR list; ENDLIST ends the stream. */
  private takePlaylist(row: StreamRow, text: string, now: number, force = false): IngestAnswer {
    const playlist = parseEncoderPlaylist(text);
    const restarted =
      row.encoder_sequence !== null && playlist.mediaSequence < row.encoder_sequence;
    let added = 0;
    let missing = 0;
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
    if (playlist.ended && missing > 0 && !force) {
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
  private repeatsEnd(body: Uint8Array): boolean {
    try {
      const playlist = parseEncoderPlaylist(new TextDecoder().decode(body));
      return playlist.ended;
    } catch {
      return false;
    }
  }

  private async armTimeout(now: number, timeoutSeconds: number): Promise<void> {
    // One alarm at a time; it re-arms itself from the latest heartbeat (alarm()).
    if ((await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(now + timeoutSeconds * 1000);
  }

  /** The heartbeat timeout: an encoder silent for timeout_seconds ends the stream. */
  override async alarm(): Promise<void> {
    const row = this.row();
    if (!row || row.state !== "live") return this.announce();
    const now = this.clock();
    const due = (row.last_heartbeat ?? row.created_at) + row.timeout_seconds * 1000;
    if (now < due) {
      await this.ctx.storage.setAlarm(due);
      return;
    }
    if (row.pending_end !== null) {
      // The encoder ended with files it never sent: the recording ends with what came.
      this.takePlaylist(row, row.pending_end, row.last_heartbeat ?? now, true);
      await this.announce();
      return;
    }
    this.update({
      state: "ended",
      ended_at: now,
      end_reason: `no data from the encoder for ${row.timeout_seconds} s (heartbeat timeout)`,
    });
    await this.announce();
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
      if (this.segments().length > 0) await announceLiveStarted(deps, target);
      this.update({ announced: "live" });
      row = this.row()!;
    }
    if (row.state === "ended" && row.announced !== "ended") {
      const segments = this.segments();
      if (segments.length > 0) {
        await this.env.MEDIA.put(
          liveObjectKey(row.content_key, row.content_id, RECORDING_PLAYLIST),
          this.render(segments, true),
          { httpMetadata: { contentType: "application/vnd.apple.mpegurl" } },
        );
      }
      // The thumbnail's source: a segment a tenth of the way in, with its init (fMP4), or
      // alone (MPEG-TS: its first keyframe is made an MP4, which the frame services take).
      const pick = segments[Math.floor(segments.length / 10)];
      const key = (file: string) => liveObjectKey(row!.content_key, row!.content_id, file);
      await announceLiveEnded(deps, target, {
        durationSeconds: segments.reduce((sum, s) => sum + s.duration, 0),
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
      await this.ctx.storage.deleteAlarm();
    }
  }

  private segments(): LiveSegment[] {
    return this.sql
      .exec("SELECT * FROM segments ORDER BY seq")
      .toArray()
      .map((r) => {
        const s = r as unknown as SegmentRow;
        return {
          seq: s.seq,
          file: s.file,
          duration: s.duration,
          map: s.map,
          discontinuity: s.discontinuity === 1,
          programDateTime: s.pdt,
        };
      });
  }

  private render(segments: LiveSegment[], ended: boolean, from = 0): string {
    // The discontinuity tags the window leaves out: those of its segments before `from`, and of
    // the first it keeps (a playlist's first segment carries none).
    const discontinuitySequence =
      from === 0 ? 0 : segments.slice(1, from + 1).filter((s) => s.discontinuity).length;
    return renderLivePlaylist(segments.slice(from), { ended, discontinuitySequence });
  }

  /**
   * The viewers' playlist (asked on an edge-cache miss): the DVR window while live, the whole
   * recording with ENDLIST once ended; null before the first segment.
   */
  playlist(contentId: number): string | null {
    this.playlistReads++;
    const row = this.row();
    if (!row || row.content_id !== contentId) return null;
    const segments = this.segments();
    if (segments.length === 0) return null;
    if (row.state === "ended") return this.render(segments, true);
    return this.render(segments, false, dvrWindow(segments, row.dvr_seconds));
  }

  /** The ended stream's stored files in play order, for its remux (domain/live/recording-vod.ts). */
  recordingParts(contentId: number): RecordingParts | null {
    const row = this.row();
    if (!row || row.content_id !== contentId || row.state !== "ended") return null;
    const segments = this.sql
      .exec("SELECT file, map, discontinuity, bytes FROM segments ORDER BY seq")
      .toArray() as unknown as Pick<SegmentRow, "file" | "map" | "discontinuity" | "bytes">[];
    const initOf = (map: string): RecordingFile | null => {
      const bytes = this.sql.exec("SELECT bytes FROM objects WHERE file = ?", map).toArray()[0]
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
