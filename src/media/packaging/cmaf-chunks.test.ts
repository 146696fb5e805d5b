import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MediaProbeError } from "../bmff/reader";
import { CmafChunkReader, type CmafEvent, CmafTooLarge } from "./cmaf-chunks";

// ffmpeg's segment muxer's chunked segments (test/fixtures/README.md): 1 s each at 25 fps, a
// fragment per frame, video and audio.
const fixture = (n: number) =>
  new Uint8Array(
    readFileSync(join(import.meta.dirname, `../../../test/fixtures/live/chunked/seg${n}.m4s.bin`)),
  );
const boxType = (b: Uint8Array) => String.fromCharCode(...b.subarray(4, 8));

/** Feeds `bytes` in chunks of `size` (the network's cuts), then ends. */
function read(bytes: Uint8Array, size: number, target = 1 / 3): CmafEvent[] {
  const reader = new CmafChunkReader(target, 32 * 1024 * 1024);
  const events: CmafEvent[] = [];
  for (let at = 0; at < bytes.length; at += size)
    events.push(...reader.push(bytes.subarray(at, at + size)));
  events.push(...reader.end());
  return events;
}

describe("CmafChunkReader", () => {
  it("splits a chunked segment into its init and parts of at most the target, whatever the cuts", () => {
    const bytes = fixture(1);
    for (const size of [1, 7, 1000, bytes.length]) {
      const events = read(bytes, size);
      const [init, ...parts] = events;
      expect(init!.kind).toBe("init");
      expect(boxType(init!.bytes)).toBe("ftyp");
      // The parts are every byte after the init, in order, each starting with a moof.
      expect(init!.bytes.length + parts.reduce((n, p) => n + p.bytes.length, 0)).toBe(bytes.length);
      const durations = parts.map((p) => (p.kind === "part" ? p.duration : -1));
      for (const p of parts) expect(boxType(p.bytes)).toBe("moof");
      // 25 frames: parts of 8 frames (0.32 s) and the rest; only the first starts on the keyframe.
      expect(durations.map((d) => Math.round(d * 25))).toEqual([8, 8, 8, 1]);
      expect(parts.map((p) => p.kind === "part" && p.independent)).toEqual([
        true,
        false,
        false,
        false,
      ]);
    }
  });

  it("makes parts of another target", () => {
    const parts = read(fixture(0), 4096, 0.5).filter((e) => e.kind === "part");
    expect(parts.map((p) => Math.round(p.duration * 25))).toEqual([12, 12, 1]);
  });

  it("gives the same init for every segment of one encoder (stored once)", () => {
    const init = (n: number) => read(fixture(n), 65536)[0]!.bytes;
    expect(init(2)).toEqual(init(0));
  });

  it("refuses fragments before the init, a box over the budget, and a body cut inside a box", () => {
    const bytes = fixture(0);
    const firstMoof = read(bytes, bytes.length)[0]!.bytes.length;
    expect(() => read(bytes.subarray(firstMoof), 100)).toThrow(/must begin with its init segment/);
    const small = new CmafChunkReader(1 / 3, 1000);
    expect(() => small.push(bytes)).toThrow(MediaProbeError);
    const cut = new CmafChunkReader(1 / 3, 1 << 20);
    cut.push(bytes.subarray(0, bytes.length - 3));
    expect(() => cut.end()).toThrow(/ended inside a box/);
    // A box claiming to be larger than the budget is refused from its header alone.
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setUint32(0, 0xffffff00);
    huge.set([0x6d, 0x64, 0x61, 0x74], 4);
    expect(() => new CmafChunkReader(1 / 3, 1 << 20).push(huge)).toThrow(CmafTooLarge);
  });
});
