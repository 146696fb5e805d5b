// The DASH manifest's shape and size: one AdaptationSet per track, and a SegmentTimeline whose
// length follows the runs of equal segment durations, not the number of segments.
import { describe, expect, it } from "vitest";
import type { HlsIndex, SegmentEntry, TrackHeader } from "../segments";
import { dashManifest, segmentTimeline } from "./manifest";

const track = (kind: "video" | "audio", timescale: number): TrackHeader => ({
  id: kind === "video" ? 1 : 2,
  kind,
  timescale,
  codec: kind === "video" ? "avc1.64001f" : "mp4a.40.2",
  width: kind === "video" ? 1280 : 0,
  height: kind === "video" ? 720 : 0,
  channels: kind === "video" ? 0 : 2,
  sampleRate: kind === "video" ? 0 : 48_000,
  sampleEntry: "",
  presentationStart: 0,
});

/** An index of `count` segments of `seconds` each (the last one shorter), video and audio. */
function indexOf(count: number, seconds: number): HlsIndex {
  const video = track("video", 15_360);
  const audio = track("audio", 48_000);
  const segments: SegmentEntry[] = [];
  for (let i = 0; i < count; i++)
    segments.push({
      duration: i === count - 1 ? seconds / 2 : seconds,
      recordsAt: 0,
      video: { count: 1, decodeTime: i * seconds * video.timescale },
      // AAC frames of 1,024 samples: audio segments alternate in length around the video's.
      audio: { count: 1, decodeTime: Math.ceil((i * seconds * 48_000) / 1024) * 1024 },
      bytes: 1000,
      videoBytes: 800,
    });
  return {
    format: 1,
    targetSeconds: seconds,
    durationSeconds: (count - 0.5) * seconds,
    video,
    audio,
    segments,
  };
}

describe("segmentTimeline", () => {
  it("writes runs of equal durations as one S with a repeat count", () => {
    expect(segmentTimeline([6, 6, 6, 4, 6, 6, 3])).toBe(
      '<SegmentTimeline><S t="0" d="6" r="2"/><S d="4"/><S d="6" r="1"/><S d="3"/></SegmentTimeline>',
    );
    expect(segmentTimeline([])).toBe("<SegmentTimeline></SegmentTimeline>");
  });
});

describe("dashManifest", () => {
  it("has one AdaptationSet per track, each with its own init and media segments", () => {
    const mpd = dashManifest(indexOf(3, 6));
    const sets = [
      ...mpd.matchAll(/<AdaptationSet [^>]*contentType="(\w+)"[\s\S]*?<\/AdaptationSet>/g),
    ];
    expect(sets.map((m) => m[1])).toEqual(["video", "audio"]);
    expect(sets[0]![0]).toContain('codecs="avc1.64001f"');
    expect(sets[0]![0]).toContain('initialization="video-init.mp4" media="video-$Number$.m4s"');
    expect(sets[1]![0]).toContain('codecs="mp4a.40.2"');
    expect(sets[1]![0]).toContain('initialization="audio-init.mp4" media="audio-$Number$.m4s"');
    expect(sets[1]![0]).toContain('audioSamplingRate="48000"');
    expect(mpd).toContain('<S t="0" d="92160" r="1"/><S d="46080"/>');
    expect(mpd).toContain('mediaPresentationDuration="PT15.000S"');
  });

  it("has no audio AdaptationSet for a video without audio", () => {
    const mpd = dashManifest({ ...indexOf(2, 6), audio: null });
    expect(mpd).not.toContain('contentType="audio"');
    expect(mpd).not.toContain("audio-");
  });

  it("stays small for 200,000 segments", () => {
    const mpd = dashManifest(indexOf(200_000, 2));
    expect(mpd.length).toBeLessThan(2_000);
    expect(mpd).toContain('<S t="0" d="30720" r="199998"/><S d="15360"/>');
  });
});

describe("each Representation's bandwidth", () => {
  /** The bandwidth of a Representation by id. */
  const bandwidthOf = (mpd: string, id: string) =>
    Number(new RegExp(`<Representation id="${id}" bandwidth="(\\d+)"`).exec(mpd)?.[1]);

  it("is its own track's peak: video and audio apart, never the muxed stream's", () => {
    const index = indexOf(3, 6);
    // A video segment of 700 KB among 300 KB ones; the audio 24 KB (32 kbit/s over 6 s).
    index.segments.forEach((s, i) => {
      s.videoBytes = i === 1 ? 700_000 : 300_000;
      s.bytes = s.videoBytes + 24_000;
    });
    const mpd = dashManifest(index);
    const video = bandwidthOf(mpd, "video");
    const audio = bandwidthOf(mpd, "audio");
    // Segment 1 (6 s) is the video's peak; the last (3 s) is the audio's. Headers add a little.
    expect(video).toBeGreaterThanOrEqual((700_000 * 8) / 6);
    expect(video).toBeLessThan((700_200 * 8) / 6);
    expect(audio).toBeGreaterThanOrEqual((24_000 * 8) / 3);
    expect(audio).toBeLessThan((24_200 * 8) / 3);
  });

  it("of a rung is its video's, from its own index (its muxed peak counts the audio)", () => {
    const source = indexOf(2, 6);
    const rung = indexOf(2, 6);
    rung.video = { ...rung.video, width: 640, height: 360 };
    rung.segments.forEach((s) => {
      s.videoBytes = 150_000;
      s.bytes = 150_000 + 96_000;
    });
    const mpd = dashManifest(source, [
      {
        variant: {
          name: "r360",
          width: 640,
          height: 360,
          peakBitrate: 999_999,
          averageBitrate: 999_999,
          codecs: "avc1.64001e,mp4a.40.2",
        },
        index: rung,
      },
    ]);
    const r360 = bandwidthOf(mpd, "r360");
    // The last segment is 3 s long: 150 KB over 3 s is the peak.
    expect(r360).toBeGreaterThanOrEqual((150_000 * 8) / 3);
    expect(r360).toBeLessThan((150_200 * 8) / 3);
  });
});
