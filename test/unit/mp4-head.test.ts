// What the first bytes of an upload tell (src/media/mp4-head.ts), on the real fixtures: the
// codecs of a faststart file, "more" until its moov is complete, nothing for a moov at the end.
import { describe, expect, it } from "vitest";
import { headRefusal, scanHead } from "../../src/media/mp4-head";
import faststartUrl from "../fixtures/h264-aac-faststart.mp4?inline";
import moovEndUrl from "../fixtures/h264-aac-moov-end.mp4?inline";
import hevcUrl from "../fixtures/hevc-aac-faststart.mp4?inline";
import mpeg4Url from "../fixtures/mpeg4-aac.mp4?inline";
import pngUrl from "../fixtures/not-a-jpeg.png?inline";

const bytesOf = (url: string) =>
  Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));

describe("scanHead", () => {
  it("finds the codecs of a faststart file in its first bytes", () => {
    const hevc = scanHead(bytesOf(hevcUrl));
    expect(hevc).toEqual({ kind: "codecs", video: "hvc1", audio: "mp4a.40.2" });
    // HEVC is accepted (transcoded after E2); a codec the service cannot transcode is refused.
    expect(headRefusal(hevc)).toBeNull();
    expect(headRefusal({ kind: "codecs", video: "mp4v", audio: "mp4a.40.2" })).toBe(
      "video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    );
    expect(headRefusal({ kind: "codecs", video: "hev1", audio: "mp4a.6B" })).toBe(
      "audio codec must be AAC, got mp4a.6B",
    );
    // A deployment without a transcoder refuses what it cannot transcode.
    expect(headRefusal(hevc, false)).toBe(
      "HEVC (hvc1) video plays only once transcoded, and this deployment has no transcoder: upload H.264 (avc1) video",
    );
    const h264 = scanHead(bytesOf(faststartUrl));
    expect(h264).toEqual({ kind: "codecs", video: "avc1", audio: "mp4a.40.2" });
    expect(headRefusal(h264)).toBeNull();
    expect(headRefusal(h264, false)).toBeNull();
  });

  it("asks for more until the moov is complete, naming how much", () => {
    const file = bytesOf(hevcUrl);
    const first = scanHead(file.subarray(0, 10));
    expect(first).toEqual({ kind: "more", needed: 16 });
    // ftyp (28 bytes) then the moov header: the whole moov is needed.
    const partial = scanHead(file.subarray(0, 100));
    expect(partial.kind).toBe("more");
    const needed = (partial as { needed: number }).needed;
    expect(scanHead(file.subarray(0, needed - 1)).kind).toBe("more");
    expect(scanHead(file.subarray(0, needed)).kind).toBe("codecs");
  });

  it("cannot tell for a moov at the end, or what is not an MP4 start: E2 decides", () => {
    for (const url of [moovEndUrl, mpeg4Url, pngUrl]) {
      const verdict = scanHead(bytesOf(url));
      expect(verdict).toEqual({ kind: "unknown" });
      expect(headRefusal(verdict)).toBeNull();
    }
  });

  it("leaves a corrupt moov to E2", () => {
    const file = bytesOf(hevcUrl).slice();
    // The moov's first child claims more than the moov holds.
    new DataView(file.buffer).setUint32(28 + 8, 0xffff_fff0);
    expect(scanHead(file)).toEqual({ kind: "unknown" });
  });
});
