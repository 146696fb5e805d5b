// Caption files: WebVTT and SubRip read into cues, mistakes named by their line, written back
// as WebVTT that reads the same.
import { describe, expect, it } from "vitest";
import {
  CaptionFileError,
  formatTimestamp,
  parseCaptionFile,
  plainText,
  writeWebVtt,
} from "./cue-file";

const vtt = (...lines: string[]) => lines.join("\n");

/** The message of the error a file raises. */
function mistake(text: string, format: "webvtt" | "subrip"): string {
  try {
    parseCaptionFile(text, format);
  } catch (err) {
    if (err instanceof CaptionFileError) return err.message;
    throw err;
  }
  throw new Error("no mistake found");
}

describe("WebVTT", () => {
  it("reads cues with identifiers, settings, several lines and tags; leaves NOTE, STYLE, REGION out", () => {
    const cues = parseCaptionFile(
      vtt(
        "\uFEFFWEBVTT - the match",
        "Kind: captions",
        "",
        "STYLE",
        "::cue { color: yellow }",
        "",
        "NOTE written by hand",
        "",
        "intro",
        "00:01.000 --> 00:04.500 align:start line:90% region:r1 bogus",
        "<v Commentator>Welcome</v>",
        "to the <i>match</i> &amp; more",
        "",
        "",
        "01:02:03.004 --> 01:02:05.000",
        "Late goal!",
      ),
      "webvtt",
    );
    expect(cues).toEqual([
      {
        id: "intro",
        start: 1,
        end: 4.5,
        settings: "align:start line:90%",
        text: "<v Commentator>Welcome</v>\nto the <i>match</i> &amp; more",
      },
      { start: 3723.004, end: 3725, text: "Late goal!" },
    ]);
  });

  it("takes \\r\\n and \\r line ends", () => {
    const text = "WEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.000\r\nOne\r\rTwo-line\r\n";
    expect(() => parseCaptionFile(text, "webvtt")).toThrow(/line 6/);
    expect(
      parseCaptionFile("WEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.000\r\nOne\r\n", "webvtt"),
    ).toEqual([{ start: 1, end: 2, text: "One" }]);
  });

  it.each([
    [
      vtt("WEBVT", "", "00:01.000 --> 00:02.000", "x"),
      /^line 1: a WebVTT file starts with "WEBVTT"/,
    ],
    [vtt("1", "00:00:01,000 --> 00:00:02,000", "x"), /^line 1: .*application\/x-subrip/],
    [vtt("WEBVTT", "00:01.000 --> 00:02.000", "x"), /^line 2: a blank line must separate/],
    [
      vtt("WEBVTT", "", "00:01.000 --> 00:02.000", "ok", "", "hello", "world"),
      /^line 7: expected a cue timing line .*"world"/,
    ],
    [
      vtt("WEBVTT", "", "00:01.000 --> 00:02.000", "ok", "", "1:02.000 --> 00:03.000", "x"),
      /^line 6: the cue's start "1:02.000" is not a WebVTT time/,
    ],
    [
      vtt("WEBVTT", "", "00:01.000 --> 00:61.000", "x"),
      /^line 3: the cue's end "00:61.000" is not a WebVTT time/,
    ],
    [
      vtt("WEBVTT", "", "00:03.000 --> 00:02.000", "x"),
      /^line 3: the cue ends \(00:00:02.000\) before it starts \(00:00:03.000\)/,
    ],
    [
      vtt("WEBVTT", "", "99:59:59.000 --> 100:00:00.000", "x"),
      /^line 3: the cue ends after 99:59:59.999: a caption file's times are under 100 hours$/,
    ],
    [
      vtt("WEBVTT", "", "00:03.000 --> 00:04.000", "a", "", "00:01.000 --> 00:02.000", "b"),
      /^line 6: the cue starts at 00:00:01.000, before the one above it/,
    ],
    [
      vtt("WEBVTT", "", "00:01.000 --> 00:02.000", "a", "00:02.000 --> 00:03.000", "b"),
      /^line 5: a cue's text cannot contain "-->"/,
    ],
    [
      vtt("WEBVTT", "", "00:01.000 --> 00:02.000", "a", "", "STYLE", "::cue {}"),
      /^line 6: a STYLE block must come before the first cue/,
    ],
    [vtt("WEBVTT", "", "NOTE nothing else"), /^the file has no cue$/],
  ])("names the line of a mistake: %#", (text, message) => {
    expect(mistake(text, "webvtt")).toMatch(message);
  });
});

describe("SubRip", () => {
  it("reads numbered cues (and unnumbered ones) into WebVTT cue text", () => {
    const cues = parseCaptionFile(
      [
        "\uFEFF1",
        "00:00:01,000 --> 00:00:03,250",
        '<font color="#ffff00">Tom & Jerry</font>',
        "<I>x < y</I> --> {\\an8}ok",
        "",
        "",
        "00:00:04,5 --> 00:00:06,000 X1:10 X2:20",
        "<b>Goal</b>",
        "",
      ].join("\r\n"),
      "subrip",
    );
    expect(cues).toEqual([
      { start: 1, end: 3.25, text: "Tom &amp; Jerry\n<i>x &lt; y</i> --&gt; ok" },
      { start: 4.5, end: 6, text: "<b>Goal</b>" },
    ]);
  });

  it.each([
    [
      "WEBVTT\n\n00:01.000 --> 00:02.000\nx",
      /^line 1: this is a WebVTT file: send it as text\/vtt$/,
    ],
    [
      "1\n00:00:01,000 --> 00:00:02,000\nok\n\nHello",
      /^line 5: expected the cue's number .*"Hello"/,
    ],
    ["1\n00:00:01,000 -> 00:00:02,000\nx", /^line 2: expected the cue's times/],
    [
      "1\n00:00:01,000 --> 00:00:02;000\nx",
      /^line 2: the cue's end "00:00:02;000" is not a SubRip time/,
    ],
    [
      "7\n00:00:05,000 --> 00:00:05,000\nx",
      /^line 2: the cue ends \(00:00:05.000\) before it starts/,
    ],
    [
      "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n99999999999999999999:00:00,000 --> 99999999999999999999:00:01,000\nx",
      /^line 6: the cue ends after 99:59:59.999: a caption file's times are under 100 hours$/,
    ],
    ["", /^the file has no cue$/],
  ])("names the line of a mistake: %#", (text, message) => {
    expect(mistake(text, "subrip")).toMatch(message);
  });
});

describe("writing WebVTT", () => {
  it("writes cues that read back the same, blank lines out of their text", () => {
    const cues = [
      { id: "a", start: 0.5, end: 2, text: "One\n\nTwo", settings: "align:end" },
      { start: 3600 * 12 + 61.25, end: 3600 * 12 + 62, text: "<i>Later</i>" },
    ];
    const text = writeWebVtt(cues);
    expect(text).toBe(
      "WEBVTT\n\na\n00:00:00.500 --> 00:00:02.000 align:end\nOne\nTwo\n\n12:01:01.250 --> 12:01:02.000\n<i>Later</i>\n",
    );
    expect(parseCaptionFile(text, "webvtt")).toEqual([{ ...cues[0], text: "One\nTwo" }, cues[1]]);
  });

  it("formats times and reads cue text as plain words", () => {
    expect(formatTimestamp(0)).toBe("00:00:00.000");
    expect(formatTimestamp(59.9996)).toBe("00:01:00.000");
    expect(formatTimestamp(100 * 3600 + 1.001)).toBe("100:00:01.001");
    expect(plainText("<v Ann>Tom &amp; <i>Jerry</i></v>\n&lt;3")).toBe("Tom & Jerry <3");
  });
});
