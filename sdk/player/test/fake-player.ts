// A scripted player behind the PlayerSource interface, sending events in the order an HTML5
// element does (timeupdate before pause, pause before ended, seeking/seeked around a jump). Time
// is a fake clock (vitest's unless told otherwise): run() advances it in 250 ms steps, like
// Chromium's timeupdate.
import { vi } from "vitest";
import type { PlayerSource, PlayerState, SourceEvent } from "../src/types";

const STEP_MS = 250;

export class FakePlayer implements PlayerSource {
  s: PlayerState = {
    currentTime: 0,
    duration: 40,
    paused: true,
    ended: false,
    seeking: false,
    muted: false,
    playbackRate: 1,
    autoplay: false,
    captions: false,
    fullscreen: false,
    visible: false,
    userActivation: true,
  };
  private listener: ((event: SourceEvent) => void) | undefined;

  constructor(
    initial: Partial<PlayerState> = {},
    private readonly advance: (ms: number) => void = (ms) => vi.advanceTimersByTime(ms),
  ) {
    Object.assign(this.s, initial);
  }

  state(): PlayerState {
    return { ...this.s };
  }

  subscribe(listener: (event: SourceEvent) => void) {
    this.listener = listener;
    return () => {
      this.listener = undefined;
    };
  }

  get subscribed() {
    return this.listener !== undefined;
  }

  emit(event: SourceEvent) {
    this.listener?.(event);
  }

  /** Starts playback: by a user gesture unless told otherwise. A play after the end restarts at 0. */
  play({ gesture = true }: { gesture?: boolean } = {}) {
    this.s.userActivation = gesture;
    if (this.s.ended) this.seek(0);
    this.s.paused = false;
    this.s.ended = false;
    this.emit("play");
    this.emit("playing");
  }

  /** Plays for `seconds` of wall time (fake clock), stopping at the end like the element does. */
  run(seconds: number) {
    for (let left = seconds * 1000; left > 0 && !this.s.paused; left -= STEP_MS) {
      const ms = Math.min(STEP_MS, left);
      this.advance(ms);
      this.s.currentTime = Math.min(
        this.s.duration,
        this.s.currentTime + (ms / 1000) * this.s.playbackRate,
      );
      this.emit("timeupdate");
      if (this.s.currentTime >= this.s.duration) {
        this.s.paused = true;
        this.s.ended = true;
        this.emit("pause");
        this.emit("ended");
      }
    }
  }

  /** Plays until the position reaches `position` seconds. */
  runTo(position: number) {
    while (!this.s.paused && this.s.currentTime < position) this.run(0.25);
  }

  pause() {
    this.s.paused = true;
    this.emit("timeupdate");
    this.emit("pause");
  }

  seek(position: number) {
    this.s.seeking = true;
    this.s.currentTime = position;
    this.s.ended = false;
    this.emit("seeking");
    this.emit("timeupdate");
    this.s.seeking = false;
    this.emit("seeked");
  }

  set(patch: Partial<PlayerState>, event: SourceEvent) {
    Object.assign(this.s, patch);
    this.emit(event);
  }
}
