// Turns a player's behaviour into the spec's video counters (SPEC 2.5). No DOM here: the tracker
// sees a PlayerSource (state + notifications), so its rules are unit-tested in Node. The rules
// are documented in README.md ("When each event fires"); keep the two in step.
import type { PlayerSource, PlayerState, SourceEvent } from "./types.js";

const SECONDS = [1, 3, 15, 30] as const;
const PERCENTS = [25, 50, 75] as const;
/** Wall-clock seconds an event may be handled late and still count as playback. */
const JANK_SLACK_S = 1;

interface Session {
  /** Seconds actually played (playback advancing, seeks excluded). */
  played: number;
  /** Position and clock time at the last observation. */
  pos: number;
  at: number;
  /** Paused by the viewer (not by reaching the end). */
  paused: boolean;
  fired: Set<string>;
}

export interface Tracker {
  handle(event: SourceEvent): void;
  docked(): void;
  undocked(): void;
  /** New content in the same player: sessions, impressions and the thumbnail view start over. */
  reset(): void;
  /** Begins: a player already playing gets its session now. */
  start(): void;
}

export function createTracker(
  source: PlayerSource,
  emit: (event: string) => void,
  now: () => number,
): Tracker {
  let session: Session | null = null;
  // Decided at "play" (when user activation is still observable), used at "playing".
  let pendingAutoplay: boolean | null = null;
  let everPlayed = false;
  let seen = false;
  let dockedNow = false;
  const first = source.state();
  let muted = first.muted;
  let captions = first.captions;
  let fullscreen = first.fullscreen;

  const once = (s: Session, name: string) => {
    if (!s.fired.has(name)) {
      s.fired.add(name);
      emit(name);
    }
  };

  const sync = (s: Session, state: PlayerState) => {
    s.pos = state.currentTime;
    s.at = now();
  };

  /** Adds the playback since the last observation; jumps (seeks, gaps) only move the mark. */
  const tick = (state: PlayerState) => {
    const s = session;
    if (!s) return;
    const t = state.currentTime;
    const delta = t - s.pos;
    // Playback cannot outrun the clock: anything beyond elapsed time x rate is a jump the player
    // did not flag as a seek. The slack is wall time (a busy main thread handles an event late
    // and reads a position from when it was queued), so it scales with the rate too.
    const elapsed = (now() - s.at) / 1000;
    const allowed = (elapsed + JANK_SLACK_S) * Math.max(state.playbackRate, 0) * 1.25;
    if (!state.seeking && !s.paused && delta > 0 && delta <= allowed) {
      s.played += delta;
      for (const n of SECONDS) if (s.played >= n) once(s, `played_${n}s`);
      const d = state.duration;
      if (d > 0 && d !== Infinity) {
        for (const p of PERCENTS) {
          const mark = (d * p) / 100;
          if (s.pos < mark && t >= mark) once(s, `played_${p}percent`);
        }
      }
    }
    sync(s, state);
  };

  const resume = (state: PlayerState) => {
    if (session?.paused) {
      session.paused = false;
      emit("video_resume");
    }
    if (session) sync(session, state);
  };

  const start = (state: PlayerState, autoplay = pendingAutoplay ?? isAutoplay(state)) => {
    pendingAutoplay = null;
    everPlayed = true;
    session = { played: 0, pos: state.currentTime, at: now(), paused: false, fired: new Set() };
    emit("video_played");
    emit(state.muted ? "video_played_muted" : "video_played_unmuted");
    if (autoplay) emit("video_autoplay");
  };

  /**
   * Already playing when the tracker starts looking (attach() after playback began, a playlist's
   * next item): a session from here. Whether a click started it is past knowing; only the
   * autoplay attribute says autoplay.
   */
  const joinPlayback = (state: PlayerState) => {
    if (!session && !state.paused && !state.ended) start(state, state.autoplay);
  };

  const impression = (state: PlayerState) => {
    if (seen || !state.visible) return;
    seen = true;
    if (!everPlayed) emit("thumbnail_view");
    emit("video_impression");
  };

  const handle = (event: SourceEvent) => {
    const state = source.state();
    switch (event) {
      case "play":
        if (session) resume(state);
        else if (pendingAutoplay === null) pendingAutoplay = isAutoplay(state);
        break;
      case "playing":
        if (session) resume(state);
        else start(state);
        break;
      case "timeupdate":
        tick(state);
        break;
      case "seeking":
      case "seeked":
        if (session) sync(session, state);
        break;
      case "pause":
        tick(state);
        // The element also pauses on reaching the end; that is video_ended, not a pause.
        if (session && !session.paused && !state.ended) {
          session.paused = true;
          emit("video_pause");
        }
        if (!session) pendingAutoplay = null;
        break;
      case "ended":
        tick(state);
        if (session) emit("video_ended");
        session = null;
        pendingAutoplay = null;
        break;
      case "emptied":
        // A new source: the next play is a new session. Loading also drops the element's
        // pending events (a volumechange queued just before load() never fires), so take the
        // mute state as it is now, without counting an action nobody saw.
        session = null;
        pendingAutoplay = null;
        muted = state.muted;
        break;
      case "volumechange":
        if (state.muted !== muted) {
          muted = state.muted;
          emit(muted ? "video_muted" : "video_unmuted");
        }
        break;
      case "captionschange":
        if (state.captions !== captions) {
          captions = state.captions;
          if (captions) emit("video_caption_enabled");
        }
        break;
      case "fullscreenchange":
        if (state.fullscreen !== fullscreen) {
          fullscreen = state.fullscreen;
          emit(fullscreen ? "video_entered_fullscreen" : "video_exited_fulscreen");
        }
        break;
      case "viewport":
        impression(state);
        break;
    }
  };

  return {
    handle,
    docked() {
      if (!dockedNow) {
        dockedNow = true;
        emit("video_docked");
      }
    },
    undocked() {
      if (dockedNow) {
        dockedNow = false;
        emit("video_undocked");
      }
    },
    reset() {
      session = null;
      pendingAutoplay = null;
      everPlayed = false;
      seen = false;
      const state = source.state();
      // Joined first: content that is already playing shows no thumbnail.
      joinPlayback(state);
      impression(state);
    },
    start() {
      joinPlayback(source.state());
    },
  };
}

/** Started by the autoplay attribute/option, or by script without a user gesture. */
function isAutoplay(state: PlayerState): boolean {
  return state.autoplay || state.userActivation === false;
}
