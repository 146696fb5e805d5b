import { describe, expect, it } from "vitest";
import {
  dvrWindow,
  PlaylistError,
  parseEncoderPlaylist,
  renderLivePlaylist,
  WINDOW_MAX_SEGMENTS,
} from "./live-playlist";

describe("parseEncoderPlaylist", () => {
  it("reads ffmpeg's fMP4 live playlist", () => {
    const parsed = parseEncoderPlaylist(
      '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:4\n#EXT-X-MAP:URI="init.mp4"\n#EXT-X-PROGRAM-DATE-TIME:2026-11-27T17:00:00.000+0000\n#EXTINF:1.000000,\nindex4.m4s\n#EXT-X-DISCONTINUITY\n#EXTINF:0.960000,\nhttp://h/x/index5.m4s\n#EXT-X-ENDLIST\n',
    );
    expect(parsed).toEqual({
      mediaSequence: 4,
      ended: true,
      segments: [
        {
          name: "index4.m4s",
          duration: 1,
          discontinuity: false,
          map: "init.mp4",
          programDateTime: "2026-11-27T17:00:00.000Z",
        },
        {
          name: "index5.m4s",
          duration: 0.96,
          discontinuity: true,
          map: "init.mp4",
          programDateTime: null,
        },
      ],
    });
  });

  it("refuses what is not a media playlist, naming why", () => {
    expect(() => parseEncoderPlaylist("hello")).toThrow(PlaylistError);
    expect(() => parseEncoderPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8")).toThrow(
      /multivariant/,
    );
    expect(() => parseEncoderPlaylist("#EXTM3U\nseg.ts")).toThrow(/without #EXTINF/);
    expect(() => parseEncoderPlaylist("#EXTM3U\n#EXTINF:99,\nseg.ts")).toThrow(/EXTINF duration/);
    expect(() => parseEncoderPlaylist("#EXTM3U\n#EXTINF:1,\nseg.exe")).toThrow(/must name/);
  });
});

describe("the viewers' playlists", () => {
  const seg = (seq: number, duration = 2, extra = {}) => ({
    seq,
    file: `u${seq}.ts`,
    duration,
    map: null,
    discontinuity: false,
    programDateTime: null,
    ...extra,
  });

  it("keeps the DVR window: the last segments within its seconds, at least three", () => {
    const list = Array.from({ length: 10 }, (_, i) => seg(i));
    expect(dvrWindow(list, 7)).toBe(7);
    expect(dvrWindow(list, 8)).toBe(6);
    expect(dvrWindow(list, 1)).toBe(7);
    expect(dvrWindow(list, 100)).toBe(0);
  });

  it("counts a segment as at least a second, and holds at most WINDOW_MAX_SEGMENTS", () => {
    const zero = Array.from({ length: 4000 }, (_, i) => seg(i, 0));
    // 4,000 EXTINF:0 segments in a 60 s window: 60 of them, not all.
    expect(zero.length - dvrWindow(zero, 60)).toBe(60);
    const half = Array.from({ length: 100 }, (_, i) => seg(i, 0.5));
    expect(half.length - dvrWindow(half, 30)).toBe(30);
    // A day's window of 1-second segments: bounded in segments.
    const day = Array.from({ length: 86_400 }, (_, i) => seg(i, 1));
    expect(day.length - dvrWindow(day, 86_400)).toBe(WINDOW_MAX_SEGMENTS);
  });

  it("writes a recording of 200,000 segments (no spread of its durations)", () => {
    const list = Array.from({ length: 200_000 }, (_, i) => seg(i, i === 7 ? 5.2 : 1));
    const vod = renderLivePlaylist(list, { ended: true, discontinuitySequence: 0 });
    expect(vod).toContain("#EXT-X-TARGETDURATION:6\n");
    expect(vod.match(/^u\d+\.ts$/gm)).toHaveLength(200_000);
  });

  it("writes a sliding live playlist, and the recording with ENDLIST", () => {
    const list = [seg(5), seg(6, 2, { discontinuity: true }), seg(7)];
    const live = renderLivePlaylist(list.slice(1), { ended: false, discontinuitySequence: 2 });
    expect(live).toBe(
      "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:6\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXTINF:2.000,\nu6.ts\n#EXTINF:2.000,\nu7.ts\n",
    );
    const vod = renderLivePlaylist(list, { ended: true, discontinuitySequence: 0 });
    expect(vod).toContain("#EXT-X-PLAYLIST-TYPE:VOD");
    expect(vod).toContain("u5.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000,\nu6.ts");
    expect(vod.endsWith("#EXT-X-ENDLIST\n")).toBe(true);
  });
});
