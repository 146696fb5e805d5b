import { describe, expect, it } from "vitest";
import { DEFAULT_LADDER, planLadder } from "./ladder";

describe("planLadder", () => {
  it("gives a 1080p source the default rungs below it, sizes keeping its aspect", () => {
    expect(planLadder({ width: 1920, height: 1080 }, DEFAULT_LADDER)).toEqual([
      { name: "r720", height: 720, bitrate: 3_000_000, width: 1280, frameHeight: 720 },
      { name: "r540", height: 540, bitrate: 2_000_000, width: 960, frameHeight: 540 },
      { name: "r360", height: 360, bitrate: 365_000, width: 640, frameHeight: 360 },
      { name: "r234", height: 234, bitrate: 145_000, width: 416, frameHeight: 234 },
    ]);
  });

  it("gives no copy of a rung at or above the source", () => {
    expect(planLadder({ width: 1280, height: 720 }, DEFAULT_LADDER).map((r) => r.name)).toEqual([
      "r540",
      "r360",
      "r234",
    ]);
    expect(planLadder({ width: 416, height: 234 }, DEFAULT_LADDER)).toEqual([]);
    expect(planLadder({ width: 1920, height: 1080 }, [])).toEqual([]);
  });

  it("measures a portrait source by its shorter side, and keeps sizes even", () => {
    const [r] = planLadder({ width: 1080, height: 1920 }, [{ height: 360, bitrate: 365_000 }]);
    expect(r).toMatchObject({ width: 360, frameHeight: 640 });
    const [odd] = planLadder({ width: 1000, height: 562 }, [{ height: 360, bitrate: 365_000 }]);
    expect(odd!.width % 2).toBe(0);
  });

  it("adds a transcoded top rung at the source's size for a source not every player decodes", () => {
    const rungs = planLadder({ width: 1280, height: 720 }, DEFAULT_LADDER, true);
    expect(rungs[0]).toEqual({
      name: "r720",
      height: 720,
      bitrate: 3_000_000,
      width: 1280,
      frameHeight: 720,
    });
    expect(rungs.map((r) => r.name)).toEqual(["r720", "r540", "r360", "r234"]);
  });
});
