// The one ISO-BMFF reader (src/media/bmff/): a cursor that stays inside its box, and box parsers
// that read what the service's own writer (src/media/bmff/writer.ts) writes.
import { describe, expect, it } from "vitest";
import {
  parseElst,
  parseMdhd,
  parseTfdt,
  parseTfhd,
  parseTkhd,
  parseTrun,
  readTrunSample,
  TFHD_DEFAULT_BASE_IS_MOOF,
  type TrunSample,
} from "../../src/media/bmff/boxes";
import { BoxCursor, Bytes, children, MediaProbeError } from "../../src/media/bmff/reader";
import { edts, fullBox, mdhd, tfdt, tfhd, tkhd, u32 } from "../../src/media/bmff/writer";

/** The buffer and the box it holds (payload bounds after its 8-byte header). */
function parsed(bytes: Uint8Array) {
  const b = new Bytes(bytes);
  return { b, box: children(b, 0, b.length)[0]! };
}

describe("BoxCursor", () => {
  it("reads fields in order and refuses to read or skip past its box, naming it", () => {
    const { b, box } = parsed(fullBox("stsz", 0, 0, u32(7, 2)));
    const c = new BoxCursor(b, box);
    expect(c.fullBoxHeader()).toEqual({ version: 0, flags: 0 });
    expect([c.u32(), c.u32(), c.remaining]).toEqual([7, 2, 0]);
    expect(() => c.u8()).toThrow(MediaProbeError);
    expect(() => c.u8()).toThrow("invalid 'stsz' box");
    expect(() => new BoxCursor(b, box).skip(13)).toThrow("invalid 'stsz' box");
  });
});

describe("box parsers read what the writer writes", () => {
  it("tkhd, mdhd, elst, tfhd and tfdt", () => {
    const track = parsed(tkhd({ trackId: 3, duration: 9, audio: false, width: 1280, height: 720 }));
    expect(parseTkhd(track.b, track.box)).toEqual({
      trackId: 3,
      width: 1280,
      height: 720,
    });
    const media = parsed(mdhd({ timescale: 90_000, duration: 180_000 }));
    expect(parseMdhd(media.b, media.box)).toEqual({ timescale: 90_000, duration: 180_000 });
    for (const mediaTime of [1024, 2 ** 40]) {
      const { b, box } = parsed(edts({ segmentDuration: 0, mediaTime }));
      const elst = children(b, box.start, box.end)[0]!;
      expect(parseElst(b, elst)).toBe(mediaTime);
    }
    const header = parsed(tfhd(2));
    expect(parseTfhd(header.b, header.box)).toMatchObject({
      trackId: 2,
      flags: TFHD_DEFAULT_BASE_IS_MOOF,
      baseDataOffset: null,
    });
    const time = parsed(tfdt(2 ** 36));
    expect(parseTfdt(time.b, time.box)).toBe(2 ** 36);
  });

  it("trun: per-sample fields, signed composition offsets in version 1, counts checked first", () => {
    const flags = 0x000001 | 0x000100 | 0x000200 | 0x000800; // data offset, duration, size, cto
    const { b, box } = parsed(fullBox("trun", 1, flags, u32(2, -8), u32(512, 100, -1024, 0, 2, 0)));
    const trun = parseTrun(b, box);
    expect(trun).toMatchObject({ sampleCount: 2, dataOffset: -8, firstSampleFlags: null });
    const sample: TrunSample = { duration: 0, size: 0, flags: 7, cto: 0 };
    readTrunSample(trun, sample);
    expect(sample).toEqual({ duration: 512, size: 100, flags: 7, cto: -1024 });
    readTrunSample(trun, sample);
    expect(sample).toEqual({ duration: 0, size: 2, flags: 7, cto: 0 });

    const lying = parsed(fullBox("trun", 0, 0x000100, u32(2 ** 32 - 1), u32(1, 2, 3)));
    expect(() => parseTrun(lying.b, lying.box)).toThrow("invalid 'trun' box");
  });
});
