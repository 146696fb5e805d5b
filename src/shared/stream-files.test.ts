// The stream's file names: every form parses into what it stands for and is written back the
// same, the route's pattern accepts exactly the names that parse, and nothing else is a name.
import { describe, expect, it } from "vitest";
import {
  DASH_NUMBER,
  numberedNames,
  parseStreamFile,
  STREAM_FILE_FORMS,
  STREAM_FILE_PATTERN,
  type StreamFile,
  showsRecord,
  streamBody,
  streamFileName,
  streamPath,
} from "./stream-files";

/** Every form, with what it stands for (the ends of the number ranges included). */
const NAMES: [string, StreamFile][] = [
  ["master.m3u8", { kind: "master" }],
  ["video.m3u8", { kind: "media-playlist", rung: null }],
  ["r360-video.m3u8", { kind: "media-playlist", rung: "r360" }],
  ["subtitles-0.m3u8", { kind: "subtitle-playlist", number: 0 }],
  ["subtitles-9999.m3u8", { kind: "subtitle-playlist", number: 9999 }],
  ["subtitles-2.vtt", { kind: "subtitle", number: 2 }],
  ["captions-en.m3u8", { kind: "caption-playlist", language: "en" }],
  ["captions-pt-BR.vtt", { kind: "caption", language: "pt-BR" }],
  ["captions-zh-Hant.vtt", { kind: "caption", language: "zh-Hant" }],
  ["manifest.mpd", { kind: "manifest" }],
  ["init.mp4", { kind: "init", rung: null, track: "muxed" }],
  ["video-init.mp4", { kind: "init", rung: null, track: "video" }],
  ["audio-init.mp4", { kind: "init", rung: null, track: "audio" }],
  ["r1080-init.mp4", { kind: "init", rung: "r1080", track: "muxed" }],
  ["r10-video-init.mp4", { kind: "init", rung: "r10", track: "video" }],
  ["0.m4s", { kind: "segment", rung: null, track: "muxed", number: 0 }],
  ["9999999.m4s", { kind: "segment", rung: null, track: "muxed", number: 9_999_999 }],
  ["video-12.m4s", { kind: "segment", rung: null, track: "video", number: 12 }],
  ["audio-3.m4s", { kind: "segment", rung: null, track: "audio", number: 3 }],
  ["r9999-4.m4s", { kind: "segment", rung: "r9999", track: "muxed", number: 4 }],
  ["r360-video-40.m4s", { kind: "segment", rung: "r360", track: "video", number: 40 }],
];

/** Names that are none of the forms, each near one. */
const NOT_NAMES = [
  "",
  "secret.txt",
  "Master.m3u8",
  "master.m3u8?token=x",
  "../master.m3u8",
  "hls/master.m3u8",
  "index.m3u8",
  "audio.m3u8",
  "r360-audio.m3u8",
  "r360-audio-init.mp4",
  "r360-audio-4.m4s",
  "r5-video.m3u8",
  "r0360-init.mp4",
  "r10000-4.m4s",
  "01.m4s",
  "-1.m4s",
  "10000000.m4s",
  "1.5.m4s",
  "muxed-init.mp4",
  "video-video-init.mp4",
  "subtitles-.vtt",
  "subtitles-10000.vtt",
  "subtitles-1.mp4",
  "r360-subtitles-1.vtt",
  "captions-.vtt",
  "captions-EN.vtt",
  "captions-english.vtt",
  "captions-en-.vtt",
  "captions-en-B.vtt",
  "captions-en.mp4",
  "captions-1.vtt",
  "r360-manifest.mpd",
  "manifest.m3u8",
  "init.m4s",
];

/** A form as the route's message shows it, with its slots filled: a name it matches. */
const filled = (form: string) =>
  form
    .replace("r<height>", "r720")
    .replace("(video|audio)", "audio")
    .replace("<n>", "7")
    .replace("<language>", "en");

describe("stream file names", () => {
  it.each(NAMES)("%s parses into what it stands for and is written back the same", (name, file) => {
    expect(parseStreamFile(name)).toEqual(file);
    expect(streamFileName(file)).toBe(name);
    expect(STREAM_FILE_PATTERN.test(name)).toBe(true);
  });

  it("has these forms, each of which parses and writes back", () => {
    expect(STREAM_FILE_FORMS).toEqual([
      "master.m3u8",
      "video.m3u8",
      "r<height>-video.m3u8",
      "subtitles-<n>.m3u8",
      "subtitles-<n>.vtt",
      "captions-<language>.m3u8",
      "captions-<language>.vtt",
      "manifest.mpd",
      "init.mp4",
      "(video|audio)-init.mp4",
      "r<height>-init.mp4",
      "r<height>-video-init.mp4",
      "<n>.m4s",
      "(video|audio)-<n>.m4s",
      "r<height>-<n>.m4s",
      "r<height>-video-<n>.m4s",
    ]);
    for (const form of STREAM_FILE_FORMS) {
      const file = parseStreamFile(filled(form));
      expect(file, form).not.toBeNull();
      expect(streamFileName(file!)).toBe(filled(form));
    }
    // The table above has every kind.
    expect(new Set(NAMES.map(([, f]) => f.kind)).size).toBe(9);
  });

  it.each(NOT_NAMES)("%j is no stream file name, for the parser and the route alike", (name) => {
    expect(parseStreamFile(name)).toBeNull();
    expect(STREAM_FILE_PATTERN.test(name)).toBe(false);
  });

  it("accepts exactly what it parses: names one edit away from every form", () => {
    const alphabet = ["0", "1", "9", "r", "-", ".", "a", "v", "o", "x", "/", "m", "4", "s", "E"];
    const names = new Set<string>();
    for (const [name] of NAMES)
      for (let i = 0; i <= name.length; i++) {
        names.add(name.slice(0, i) + name.slice(i + 1));
        for (const c of alphabet) {
          names.add(name.slice(0, i) + c + name.slice(i));
          names.add(name.slice(0, i) + c + name.slice(i + 1));
        }
      }
    let parsed = 0;
    for (const name of names) {
      const file = parseStreamFile(name);
      expect(STREAM_FILE_PATTERN.test(name), name).toBe(file !== null);
      if (file) {
        parsed++;
        expect(streamFileName(file), name).toBe(name);
      }
    }
    // Both sides of the line were tried.
    expect(parsed).toBeGreaterThan(100);
    expect(names.size - parsed).toBeGreaterThan(1000);
  });

  it("writes no name the route would refuse", () => {
    const refused: StreamFile[] = [
      { kind: "init", rung: "r360", track: "audio" },
      { kind: "media-playlist", rung: "360" },
      { kind: "media-playlist", rung: "r5" },
      { kind: "segment", rung: null, track: "muxed", number: -1 },
      { kind: "segment", rung: null, track: "muxed", number: 1.5 },
      { kind: "segment", rung: null, track: "muxed", number: 10_000_000 },
      { kind: "subtitle", number: 10_000 },
      { kind: "caption", language: "EN" },
      { kind: "caption-playlist", language: "../x" },
    ];
    for (const file of refused) expect(() => streamFileName(file), JSON.stringify(file)).toThrow();
  });

  it("names a series of segments with the number left open (DASH's $Number$ included)", () => {
    const rung = numberedNames({ kind: "segment", rung: "r360", track: "video" });
    expect(rung(0)).toBe("r360-video-0.m4s");
    expect(rung(DASH_NUMBER)).toBe("r360-video-$Number$.m4s");
    expect(numberedNames({ kind: "segment", rung: null, track: "muxed" })(19_999)).toBe(
      "19999.m4s",
    );
    expect(numberedNames({ kind: "subtitle" })(1)).toBe("subtitles-1.vtt");
    expect(() => rung(10_000_000)).toThrow(RangeError);
    expect(() => numberedNames({ kind: "segment", rung: "r360", track: "audio" })).toThrow();
  });

  it("says what each file's body is and whether it shows the video's record", () => {
    const of = (name: string) => {
      const file = parseStreamFile(name)!;
      return [streamBody(file), showsRecord(file)];
    };
    expect(of("master.m3u8")).toEqual(["playlist", true]);
    expect(of("r360-video.m3u8")).toEqual(["playlist", false]);
    expect(of("subtitles-1.m3u8")).toEqual(["playlist", true]);
    expect(of("subtitles-1.vtt")).toEqual(["subtitles", true]);
    expect(of("captions-en.m3u8")).toEqual(["playlist", true]);
    expect(of("captions-en.vtt")).toEqual(["subtitles", true]);
    expect(of("manifest.mpd")).toEqual(["manifest", true]);
    expect(of("video-init.mp4")).toEqual(["media", false]);
    expect(of("r360-3.m4s")).toEqual(["media", false]);
  });

  it("writes a file's path under its stream's version", () => {
    expect(streamPath("abc", "h2-1z", { kind: "subtitle", number: 0 })).toBe(
      "/hls/abc/h2-1z/subtitles-0.vtt",
    );
  });
});
