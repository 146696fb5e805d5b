import { describe, expect, it } from "vitest";
import { renderLivePlaylist } from "./live-playlist";
import { deltaStart, reloadState, withLowLatency } from "./ll-playlist";

const segments = [0, 1, 2].map((seq) => ({
  seq,
  file: `u${seq * 2 + 1}.m4s`,
  duration: 1,
  map: "u1.mp4",
  discontinuity: false,
  programDateTime: null,
}));
const part = (file: string, k: number, independent = k === 0) => ({
  uri: `${file.replace(".m4s", "")}p${k}.m4s`,
  duration: 0.32,
  independent,
});

describe("withLowLatency", () => {
  it("adds server control, part info, the parts before their segment, the building parts and the hint", () => {
    const text = withLowLatency(
      renderLivePlaylist(segments, { ended: false, discontinuitySequence: 0 }),
      {
        partTarget: 1 / 3,
        segmentParts: new Map([["u5.m4s", [part("u5.m4s", 0), part("u5.m4s", 1)]]]),
        buildingParts: [part("u7.m4s", 0)],
        preloadHint: "u7p1.m4s",
      },
    );
    expect(text).toBe(
      [
        "#EXTM3U",
        "#EXT-X-VERSION:7",
        "#EXT-X-TARGETDURATION:1",
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=6.0,PART-HOLD-BACK=1.000",
        "#EXT-X-PART-INF:PART-TARGET=0.333",
        "#EXT-X-MEDIA-SEQUENCE:0",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-MAP:URI="u1.mp4"',
        "#EXTINF:1.000,",
        "u1.m4s",
        "#EXTINF:1.000,",
        "u3.m4s",
        '#EXT-X-PART:DURATION=0.320,URI="u5p0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.320,URI="u5p1.m4s"',
        "#EXTINF:1.000,",
        "u5.m4s",
        '#EXT-X-PART:DURATION=0.320,URI="u7p0.m4s",INDEPENDENT=YES',
        '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="u7p1.m4s"',
        "",
      ].join("\n"),
    );
  });
});

describe("delta updates (_HLS_skip=YES)", () => {
  it("keep the segments within six target durations of the end and skip the rest", () => {
    expect(deltaStart(Array(10).fill(1), 1)).toBe(4);
    expect(deltaStart(Array(6).fill(1), 1)).toBe(0);
    expect(deltaStart([2, 2, 2, 2, 2], 2)).toBe(0);
    expect(deltaStart([2, 2, 2, 2, 2, 2, 2], 2)).toBe(1);
  });

  it("render EXT-X-SKIP with the window's first media sequence number, version 9", () => {
    const text = withLowLatency(
      renderLivePlaylist(segments.slice(2), { ended: false, discontinuitySequence: 0 }),
      {
        partTarget: 1 / 3,
        segmentParts: new Map(),
        buildingParts: [],
        preloadHint: "u7p0.m4s",
      },
      { segments: 2, firstSeq: 0 },
    );
    expect(text).toContain("#EXT-X-VERSION:9\n");
    expect(text).toContain(
      "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-SKIP:SKIPPED-SEGMENTS=2\n",
    );
    expect(text.match(/^#EXTINF/gm)).toHaveLength(1);
    expect(text).toContain('#EXT-X-MAP:URI="u1.mp4"');
  });
});

describe("reloadState", () => {
  it("is ready for what the playlist holds, waits for the next, refuses what is far ahead", () => {
    // Last whole segment 10; segment 11 has 2 parts so far.
    const at = (msn: number, part: number | null = null) => reloadState({ msn, part }, 10, 2, 1);
    expect(at(10)).toBe("ready");
    expect(at(3, 7)).toBe("ready");
    expect(at(11, 1)).toBe("ready");
    expect(at(11, 2)).toBe("wait");
    expect(at(11)).toBe("wait");
    expect(at(12)).toBe("wait");
    expect(at(12, 0)).toBe("wait");
    // More than two segments past the last: 400, as the spec says.
    expect(at(13)).toBe("too-far");
    expect(at(11, 50)).toBe("too-far");
  });
});
