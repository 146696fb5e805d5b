// attach() end to end in Node: a PlayerSource (the adapter hook for players that are not a bare
// <video>), the event fields, consent, ads, ecommerce, and the promise never to throw.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { attach } from "../src/index";
import type { AttachOptions, Scheduler, StatsEvent, Transport } from "../src/types";
import { FakePlayer } from "./fake-player";

function setup(options: Partial<AttachOptions> = {}) {
  const batches: { url: string; body: { events: StatsEvent[] } }[] = [];
  const transport: Transport = {
    sendBeacon: (url, body) => {
      batches.push({ url, body: JSON.parse(body) });
      return true;
    },
  };
  const player = new FakePlayer();
  const errors: unknown[] = [];
  const analytics = attach(player, {
    syncCode: "sync 1",
    contentKey: "abc123XY",
    endpoint: "https://api.test/",
    consent: false,
    transport,
    onError: (e) => errors.push(e),
    ...options,
  });
  const events = () => batches.flatMap((b) => b.body.events);
  return { player, analytics, batches, events, errors };
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-01T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("attach", () => {
  it("reports a player's events to <endpoint>/v2/events?sync=, batched every flushInterval", () => {
    const { player, batches, events } = setup({ flushInterval: 2000, playerId: "p1" });
    player.play();
    player.run(1);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(batches.map((b) => b.url)).toEqual(["https://api.test/v2/events?sync=sync%201"]);
    expect(events()).toEqual([
      { event: "video_played", contentKey: "abc123XY", playerId: "p1" },
      { event: "video_played_unmuted", contentKey: "abc123XY", playerId: "p1" },
      { event: "played_1s", contentKey: "abc123XY", playerId: "p1" },
    ]);
  });

  it("sends fingerprint, tput and consent: true only while the viewer consents", () => {
    const { player, analytics, events } = setup({
      consent: false,
      fingerprint: "fp1",
      tput: "user-1",
    });
    player.play();
    analytics.setConsent(true);
    player.pause();
    analytics.setConsent(false);
    player.play();
    analytics.flush();
    expect(events()).toEqual([
      { event: "video_played", contentKey: "abc123XY" },
      { event: "video_played_unmuted", contentKey: "abc123XY" },
      {
        event: "video_pause",
        contentKey: "abc123XY",
        consent: true,
        fingerprint: "fp1",
        tput: "user-1",
      },
      { event: "video_resume", contentKey: "abc123XY" },
    ]);
  });

  it("reports ad and ecommerce events with their dimensions", () => {
    const { analytics, events } = setup({ consent: true, fingerprint: "fp1" });
    analytics.ad("impression", { position: "preroll", creative: "cr-1", system: "ima" });
    analytics.ad("skip");
    analytics.ecommerce("clicked", { ecommerceKey: "sku-1" });
    analytics.ecommerce("bar_shown");
    analytics.flush();
    const viewer = { consent: true, fingerprint: "fp1" };
    expect(events()).toEqual([
      {
        event: "ad_impression",
        contentKey: "abc123XY",
        ...viewer,
        adPosition: "preroll",
        adCreative: "cr-1",
        adSystem: "ima",
      },
      { event: "ad_skip", contentKey: "abc123XY", ...viewer },
      { event: "ecommerce_clicked", contentKey: "abc123XY", ...viewer, ecommerceKey: "sku-1" },
      { event: "ecommerce_bar_shown", contentKey: "abc123XY", ...viewer },
    ]);
  });

  it("reports a gallery's thumbnail views for their own content keys, under the player id", () => {
    const { analytics, events } = setup({ playerId: "cfg-1" });
    analytics.thumbnailView("other001");
    analytics.thumbnailView("");
    analytics.flush();
    expect(events()).toEqual([
      { event: "thumbnail_view", contentKey: "other001", playerId: "cfg-1" },
    ]);
  });

  it("reports docking and a playlist's next content", () => {
    const { player, analytics, events } = setup();
    player.set({ visible: true }, "viewport");
    analytics.docked();
    analytics.setContent("next0001");
    analytics.undocked();
    analytics.flush();
    expect(events().map((e) => `${e.event} ${e.contentKey}`)).toEqual([
      "thumbnail_view abc123XY",
      "video_impression abc123XY",
      "video_docked abc123XY",
      "thumbnail_view next0001",
      "video_impression next0001",
      "video_undocked next0001",
    ]);
  });

  it("detach() stops listening and sends what waits", () => {
    const { player, analytics, batches } = setup();
    player.play();
    analytics.detach();
    expect(player.subscribed).toBe(false);
    expect(batches).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    expect(batches).toHaveLength(1);
  });

  it("uses an injected scheduler for its timers and clock", () => {
    const timers: { callback: () => void; ms: number }[] = [];
    const scheduler: Scheduler = {
      now: () => 0,
      setTimeout: (callback, ms) => timers.push({ callback, ms }),
      clearTimeout: () => {},
    };
    const { player, batches } = setup({ scheduler, flushInterval: 1234 });
    player.play();
    expect(timers.map((t) => t.ms)).toEqual([1234]);
    timers[0]!.callback();
    expect(batches).toHaveLength(1);
  });
});

describe("never throws into the page", () => {
  it("returns an inert handle for unusable options, and says why", () => {
    const errors: unknown[] = [];
    const analytics = attach(new FakePlayer(), {
      syncCode: "",
      contentKey: "k",
      endpoint: "https://x",
      consent: false,
      onError: (e) => errors.push(e),
    });
    expect(() => {
      analytics.ad("impression");
      analytics.flush();
      analytics.detach();
    }).not.toThrow();
    expect(String(errors[0])).toBe("TypeError: attach: syncCode is required");
    // Without options at all (plain JavaScript callers), and with a failing error handler.
    expect(() => attach(null as never, undefined as never).flush()).not.toThrow();
    expect(() =>
      attach(
        null as never,
        {
          onError: () => {
            throw new Error("x");
          },
        } as never,
      ),
    ).not.toThrow();
  });

  it("contains failures of the player, the transport and the page's error handler", () => {
    const errors: unknown[] = [];
    const { player, analytics } = setup({
      transport: {
        sendBeacon: () => {
          throw new Error("beacon broke");
        },
      },
      onError: (e) => {
        errors.push(e);
        throw new Error("handler broke too");
      },
    });
    player.state = () => {
      throw new Error("player broke");
    };
    expect(() => player.emit("timeupdate")).not.toThrow();
    player.state = FakePlayer.prototype.state;
    player.play();
    expect(() => analytics.flush()).not.toThrow();
    expect(errors.map(String)).toEqual([
      "Error: player broke",
      "Error: beacon broke",
      "Error: no transport accepted the batch",
    ]);
  });
});
