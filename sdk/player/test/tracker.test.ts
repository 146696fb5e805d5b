// The counting rules (README "When each event fires") on a scripted player and a fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTracker } from "../src/tracker";
import type { PlayerState } from "../src/types";
import { FakePlayer } from "./fake-player";

function setup(initial: Partial<PlayerState> = {}) {
  const player = new FakePlayer(initial);
  const events: string[] = [];
  const tracker = createTracker(
    player,
    (e) => events.push(e),
    () => Date.now(),
  );
  player.subscribe(tracker.handle);
  /** Events since the last call. */
  const take = () => events.splice(0);
  return { player, tracker, events, take };
}

const count = (events: string[]) =>
  events.reduce<Record<string, number>>((acc, e) => ({ ...acc, [e]: (acc[e] ?? 0) + 1 }), {});

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-01T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("impressions", () => {
  it("counts thumbnail_view and video_impression once, when half the player is first in view before playback", () => {
    const { player, take } = setup();
    player.set({ visible: false }, "viewport");
    expect(take()).toEqual([]);
    player.set({ visible: true }, "viewport");
    expect(take()).toEqual(["thumbnail_view", "video_impression"]);
    player.set({ visible: false }, "viewport");
    player.set({ visible: true }, "viewport");
    expect(take()).toEqual([]);
  });

  it("counts no thumbnail_view when the player is first seen already playing", () => {
    const { player, take } = setup();
    player.play({ gesture: false });
    take();
    player.set({ visible: true }, "viewport");
    expect(take()).toEqual(["video_impression"]);
  });

  it("starts over for new content (reset), at once when the player is in view", () => {
    const { player, tracker, take } = setup({ visible: true });
    player.emit("viewport");
    player.play();
    player.pause();
    take();
    tracker.reset();
    expect(take()).toEqual(["thumbnail_view", "video_impression"]);
    // New content that is already playing: seen, but not as a thumbnail.
    player.play();
    take();
    tracker.reset();
    expect(take()).toEqual(["video_played", "video_played_unmuted", "video_impression"]);
  });
});

describe("play sessions", () => {
  it("counts a play started by the viewer: video_played and its mute state, no autoplay", () => {
    const { player, take } = setup();
    player.play();
    expect(take()).toEqual(["video_played", "video_played_unmuted"]);
  });

  it("counts video_autoplay for the autoplay attribute and for a play without user activation", () => {
    const a = setup({ autoplay: true, muted: true });
    a.player.play();
    expect(a.take()).toEqual(["video_played", "video_played_muted", "video_autoplay"]);

    const b = setup();
    b.player.play({ gesture: false });
    expect(b.take()).toEqual(["video_played", "video_played_unmuted", "video_autoplay"]);

    // A browser that cannot tell (no navigator.userActivation) and no autoplay attribute: not autoplay.
    const c = setup({ userActivation: undefined });
    c.player.s.userActivation = undefined;
    c.player.emit("play");
    c.player.s.paused = false;
    c.player.emit("playing");
    expect(c.take()).toEqual(["video_played", "video_played_unmuted"]);
  });

  it("judges autoplay when play was asked for, not when frames arrived after buffering", () => {
    const { player, take } = setup();
    player.s.userActivation = true;
    player.s.paused = false;
    player.emit("play");
    vi.advanceTimersByTime(6000); // buffering; the click's activation has expired since
    player.s.userActivation = false;
    player.emit("playing");
    expect(take()).toEqual(["video_played", "video_played_unmuted"]);
  });

  it("counts played_Ns on seconds actually played, once per session", () => {
    const { player, take } = setup();
    player.play();
    player.run(0.75);
    expect(take()).toEqual(["video_played", "video_played_unmuted"]);
    player.run(0.25);
    expect(take()).toEqual(["played_1s"]);
    player.run(2);
    expect(take()).toEqual(["played_3s"]);
    player.run(12);
    expect(take()).toEqual(["played_25percent", "played_15s"]);
    player.run(15);
    expect(take()).toEqual(["played_50percent", "played_30s", "played_75percent"]);
    player.run(20);
    expect(take()).toEqual(["video_ended"]);
  });

  it("does not count seconds or shares skipped by seeking", () => {
    const { player, take } = setup();
    player.play();
    player.run(2); // played 2 s
    player.seek(12); // past 25 % (10 s)
    player.run(9.5); // 12 -> 21.5: played 11.5 s, crosses 50 % (20 s)
    expect(count(take())).toEqual({
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_3s: 1,
      played_50percent: 1,
    });
    player.seek(37); // past 75 % (30 s)
    player.run(5); // 37 -> 40: played 14.5 s in all
    expect(take()).toEqual(["video_ended"]);
  });

  it("does not count a jump the player did not flag as seeking (more than the clock allows)", () => {
    const { player, take } = setup();
    player.play();
    player.run(0.5);
    player.s.currentTime = 20; // e.g. an adapter without seeking events
    player.run(0.25);
    expect(take()).toEqual(["video_played", "video_played_unmuted"]);
  });

  it("counts playback whose timeupdate a busy page handled late, at 16x", () => {
    const { player, take } = setup({ playbackRate: 16 });
    player.play();
    player.run(0.25); // 0 -> 4
    // The page's main thread was busy: the next event is handled 400 ms late and reads the
    // position from when it was queued; the one after it reads the real position.
    vi.advanceTimersByTime(400);
    player.emit("timeupdate");
    vi.advanceTimersByTime(50);
    player.s.currentTime = 4 + 16 * 0.45; // 11.2: past 25 % (10 s)
    player.emit("timeupdate");
    expect(count(take())).toEqual({
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_3s: 1,
      played_25percent: 1,
    });
  });

  it("counts media seconds at a higher playbackRate", () => {
    const { player, take } = setup({ playbackRate: 16 });
    player.play();
    player.run(2.5); // 40 s of media
    expect(count(take())).toEqual({
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_3s: 1,
      played_15s: 1,
      played_30s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
    });
  });

  it("counts pause and resume within a session, not the pause that comes with the end", () => {
    const { player, take } = setup({ duration: 4 });
    player.play();
    player.run(1.5);
    take();
    player.pause();
    expect(take()).toEqual(["video_pause"]);
    vi.advanceTimersByTime(60_000); // a long pause is not playing time
    player.play();
    expect(take()).toEqual(["video_resume"]);
    player.run(5);
    expect(take()).toEqual(["played_50percent", "played_3s", "played_75percent", "video_ended"]);
  });

  it("starts a new session when playback restarts after the end", () => {
    const { player, take } = setup({ duration: 2 });
    player.play();
    player.run(3);
    expect(count(take())).toMatchObject({ video_played: 1, played_1s: 1, video_ended: 1 });
    player.play();
    player.run(3);
    expect(count(take())).toEqual({
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
    });
  });

  it("joins a playback already under way (late attach, a playlist's next item), autoplay only by the attribute", () => {
    const late = setup({ paused: false, currentTime: 12, userActivation: false });
    late.tracker.start();
    late.player.run(1);
    expect(late.take()).toEqual(["video_played", "video_played_unmuted", "played_1s"]);

    const next = setup({ autoplay: true });
    next.player.play();
    next.player.run(0.5);
    next.take();
    next.tracker.reset();
    expect(next.take()).toEqual(["video_played", "video_played_unmuted", "video_autoplay"]);

    const idle = setup();
    idle.tracker.start();
    expect(idle.take()).toEqual([]);
  });

  it("starts a new session after a new source (emptied), without video_ended", () => {
    const { player, take } = setup();
    player.play();
    player.run(1);
    player.pause();
    player.s.currentTime = 0;
    player.emit("emptied");
    player.play();
    expect(take()).toEqual([
      "video_played",
      "video_played_unmuted",
      "played_1s",
      "video_pause",
      "video_played",
      "video_played_unmuted",
    ]);
  });

  it("counts no percent shares while the duration is unknown or infinite (live)", () => {
    const { player, take } = setup({ duration: Infinity });
    player.play();
    player.run(31);
    expect(take()).toEqual([
      "video_played",
      "video_played_unmuted",
      "played_1s",
      "played_3s",
      "played_15s",
      "played_30s",
    ]);
  });
});

describe("actions", () => {
  it("counts mute changes (muted or volume 0), not volume changes that keep the state", () => {
    const { player, take } = setup();
    player.set({ muted: true }, "volumechange");
    player.set({ muted: true }, "volumechange");
    player.set({ muted: false }, "volumechange");
    expect(take()).toEqual(["video_muted", "video_unmuted"]);
  });

  it("takes the mute state as it is after a new load (whose pending volumechange never fires)", () => {
    const { player, take } = setup();
    player.s.muted = true; // muted, then load() dropped the volumechange
    player.emit("emptied");
    player.set({ muted: false }, "volumechange");
    expect(take()).toEqual(["video_unmuted"]);
  });

  it("counts video_played_muted for a session that starts muted", () => {
    const { player, take } = setup({ muted: true });
    player.play();
    expect(take()).toEqual(["video_played", "video_played_muted"]);
  });

  it("counts captions turned on, each time, not off and not captions already on at attach", () => {
    const { player, take } = setup({ captions: true });
    player.set({ captions: true }, "captionschange");
    player.set({ captions: false }, "captionschange");
    player.set({ captions: true }, "captionschange");
    expect(take()).toEqual(["video_caption_enabled"]);
  });

  it("counts fullscreen entered and exited on changes of state", () => {
    const { player, take } = setup();
    player.set({ fullscreen: true }, "fullscreenchange");
    player.set({ fullscreen: true }, "fullscreenchange");
    player.set({ fullscreen: false }, "fullscreenchange");
    expect(take()).toEqual(["video_entered_fullscreen", "video_exited_fulscreen"]);
  });

  it("counts docked and undocked on changes of state", () => {
    const { tracker, take } = setup();
    tracker.undocked();
    tracker.docked();
    tracker.docked();
    tracker.undocked();
    expect(take()).toEqual(["video_docked", "video_undocked"]);
  });
});
