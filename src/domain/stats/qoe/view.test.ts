import { describe, expect, it } from "vitest";
import {
  contributionDelta,
  contributionOf,
  exactPercentile,
  percentileOf,
  replayView,
  startupBucket,
  type ViewEvent,
} from "./view";

const kbps = (k: number) => ({ label: k > 1000 ? "720p" : "360p", height: k > 1000 ? 720 : 360 });
const ps = (ts: number, sta: ViewEvent["sta"], extra: Partial<ViewEvent> = {}): ViewEvent => ({
  ts,
  sn: ts,
  kind: "ps",
  sta,
  ...extra,
});

describe("replayView", () => {
  it("times played per rendition, with their bitrates, and the start's rendition", () => {
    const v = replayView(
      [
        ps(0, "s"),
        ps(1000, "p", { br: 800 }),
        { ts: 5000, sn: 9, kind: "bc", br: 2400 },
        ps(9000, "a"),
        ps(10_000, "p"),
        ps(12_000, "e"),
      ],
      kbps,
    );
    expect(v).toMatchObject({ startupMs: 1000, playedMs: 10_000, startRendition: "360p" });
    expect(v.renditions).toEqual([
      {
        rendition: "360p",
        height: 360,
        playedMs: 4000,
        averageKbps: 800,
        rebuffers: 0,
        rebufferMs: 0,
      },
      {
        rendition: "720p",
        height: 720,
        playedMs: 6000,
        averageKbps: 2400,
        rebuffers: 0,
        rebufferMs: 0,
      },
    ]);
    expect(v.averageKbps).toBe(Math.round((800 * 4000 + 2400 * 6000) / 10_000));
    expect(v.averageHeight).toBe(Math.round((360 * 4000 + 720 * 6000) / 10_000));
  });

  it("scores as Mux: startup 8/(8+s), smoothness, quality from upscaling, success", () => {
    const v = replayView(
      [
        ps(0, "s", { vh: 360, ph: 720 }),
        ps(2000, "p"),
        ps(3000, "r"),
        ps(4000, "p"),
        ps(102_000, "e"),
      ],
      kbps,
    );
    expect(v.scores.startup).toBeCloseTo(80, 5);
    // one rebuffer: 1/sqrt(1.25) and e^(-10 × 1/100)
    expect(v.scores.smoothness).toBeCloseTo((100 / Math.sqrt(1.25) + 100 * Math.exp(-0.1)) / 2, 5);
    // upscaled 100 % all along: e^(-0.33)
    expect(v.scores.videoQuality).toBeCloseTo(100 * Math.exp(-0.33), 5);
    expect(v.scores.playbackSuccess).toBe(100);
    expect(v.scores.overall).toBeCloseTo(
      (v.scores.startup! + v.scores.smoothness! + v.scores.videoQuality!) / 3,
      5,
    );
  });

  it("keeps at most 12 renditions a view, the rest as other", () => {
    const events = [ps(0, "s"), ps(1, "p", { br: 1 })];
    for (let i = 2; i < 40; i++) events.push({ ts: i * 1000, sn: i, kind: "bc", br: i });
    const v = replayView(events, (k) => ({ label: `${k}kbps`, height: null }));
    expect(v.renditions.length).toBeLessThanOrEqual(13);
    expect(v.renditions.some((r) => r.rendition === "other")).toBe(true);
  });
});

describe("contributions", () => {
  it("move by their difference when a view changes", () => {
    const before = contributionOf(replayView([ps(0, "s"), ps(900, "p")], kbps));
    const after = contributionOf(replayView([ps(0, "s"), ps(900, "p"), ps(5000, "f")], kbps));
    const delta = contributionDelta(before, after);
    expect(delta.rows["none"]).toMatchObject({ failed: 1, played_ms: 4100 });
    expect(delta.rows["none"]?.views).toBeUndefined();
    expect(delta.startup).toEqual([]);
  });
});

describe("startup percentiles", () => {
  it("are within a bucket (10 %) of the exact ones", () => {
    const values = Array.from({ length: 500 }, (_, i) => 200 + ((i * 7919) % 9000));
    const counts = new Map<number, number>();
    for (const v of values) counts.set(startupBucket(v), (counts.get(startupBucket(v)) ?? 0) + 1);
    for (const p of [0.5, 0.9, 0.95]) {
      const exact = exactPercentile(values, p)!;
      expect(Math.abs(percentileOf(counts, p)! - exact) / exact).toBeLessThanOrEqual(0.1);
    }
  });
});
