/**
 * Caption files as the service keeps them: WebVTT (W3C WebVTT) and SubRip (.srt) read into cues,
 * every mistake reported with the line it is on, and cues written back as WebVTT, the one format
 * HLS, DASH and the browsers' <track> all take. Pure: the domain reads and stores the bytes.
 *
 * What is kept of a WebVTT file: each cue's identifier, times, settings (vertical, line,
 * position, size, align) and text (its tags: <b>, <i>, <v Speaker>, …). NOTE, STYLE and REGION
 * blocks are left out (a cue's `region:` setting with them). A SubRip file's text keeps its
 * <b>, <i> and <u>; its <font> tags and {\an8}-style position codes go; `&` and a `<` that opens
 * no tag are escaped, as WebVTT needs.
 */
import { CAPTION_CUES_MAX, CAPTION_TIME_MAX_SECONDS } from "../../shared/captions";

export interface Cue {
  /** The cue's identifier (WebVTT), if it has one. */
  id?: string;
  /** Seconds from the start of the video. */
  start: number;
  end: number;
  /** Its text: lines separated by "\n", WebVTT cue text (tags, escaped `&` and `<`). */
  text: string;
  /** WebVTT cue settings (`align:start line:90%`), if any. */
  settings?: string;
}

export type CaptionFormat = "webvtt" | "subrip";

/** A caption file that cannot be read; `line` (from 1) is where, when the mistake has a place. */
export class CaptionFileError extends Error {
  constructor(
    readonly line: number | null,
    reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
  }
}

const SETTING_NAMES = new Set(["vertical", "line", "position", "size", "align"]);
const WEBVTT_TIME = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;
const SUBRIP_TIME = /^(\d{1,}):([0-5]?\d):([0-5]?\d)[,.](\d{1,3})$/;
/** A short prefix of what was found, for messages. */
const shown = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

function seconds(match: RegExpExecArray, millisDigits: string): number {
  const [, h, m, s] = match;
  const ms = Number(millisDigits.padEnd(3, "0"));
  return Number(h ?? 0) * 3600 + Number(m) * 60 + Number(s) + ms / 1000;
}

/** hh:mm:ss.ttt, as WebVTT writes a time. */
export function formatTimestamp(totalSeconds: number): string {
  const ms = Math.max(0, Math.round(totalSeconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

/** The text's lines: \r\n, \r and \n all end one; a byte order mark is dropped. */
function linesOf(text: string): string[] {
  return text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
}

/** The blocks of a file: runs of non-blank lines, each with the number of its first line. */
function blocksOf(lines: string[], from: number): { at: number; lines: string[] }[] {
  const blocks: { at: number; lines: string[] }[] = [];
  let current: { at: number; lines: string[] } | null = null;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") {
      current = null;
      continue;
    }
    if (!current) {
      current = { at: i + 1, lines: [] };
      blocks.push(current);
    }
    current.lines.push(line);
  }
  return blocks;
}

/** Cues in order of their start (WebVTT's rule), each ending after it starts, within the limit. */
function checkCue(cue: Cue, previous: Cue | undefined, line: number, cues: number): void {
  if (cue.end >= CAPTION_TIME_MAX_SECONDS)
    throw new CaptionFileError(
      line,
      `the cue ends after ${formatTimestamp(CAPTION_TIME_MAX_SECONDS - 0.001)}: a caption file's times are under ${CAPTION_TIME_MAX_SECONDS / 3600} hours`,
    );
  if (cue.end <= cue.start)
    throw new CaptionFileError(
      line,
      `the cue ends (${formatTimestamp(cue.end)}) before it starts (${formatTimestamp(cue.start)}): the end must be later`,
    );
  if (previous && cue.start < previous.start)
    throw new CaptionFileError(
      line,
      `the cue starts at ${formatTimestamp(cue.start)}, before the one above it (${formatTimestamp(previous.start)}): cues must be in order of their start`,
    );
  if (cues >= CAPTION_CUES_MAX)
    throw new CaptionFileError(line, `a track has at most ${CAPTION_CUES_MAX} cues`);
}

/** The settings WebVTT defines, as written; others (and `region:`, whose block is not kept) go. */
function keptSettings(raw: string): string | undefined {
  const kept = raw
    .split(/[ \t]+/)
    .filter((token) => SETTING_NAMES.has(token.split(":")[0]!) && /^[a-z]+:\S+$/.test(token));
  return kept.length ? kept.join(" ") : undefined;
}

function readWebVtt(text: string): Cue[] {
  const lines = linesOf(text);
  if (!/^WEBVTT(?:[ \t]|$)/.test(lines[0] ?? ""))
    throw new CaptionFileError(
      1,
      `a WebVTT file starts with "WEBVTT", this one with ${shown(lines[0] ?? "")} (a SubRip file is sent as application/x-subrip)`,
    );
  // The header runs to the first blank line.
  let body = 1;
  while (body < lines.length && lines[body]!.trim() !== "") {
    if (lines[body]!.includes("-->"))
      throw new CaptionFileError(
        body + 1,
        "a blank line must separate the WEBVTT header from the first cue",
      );
    body++;
  }
  const cues: Cue[] = [];
  for (const block of blocksOf(lines, body)) {
    const first = block.lines[0]!;
    if (/^(NOTE|STYLE|REGION)(?:[ \t]|$)/.test(first) && !first.includes("-->")) {
      if (/^(STYLE|REGION)/.test(first) && cues.length > 0)
        throw new CaptionFileError(
          block.at,
          `a ${first.split(/[ \t]/)[0]} block must come before the first cue`,
        );
      continue;
    }
    const hasId = !first.includes("-->");
    const timingAt = hasId ? 1 : 0;
    const timing = block.lines[timingAt];
    if (timing === undefined || !timing.includes("-->"))
      throw new CaptionFileError(
        timing === undefined ? block.at : block.at + timingAt,
        `expected a cue timing line such as "00:00:01.000 --> 00:00:04.000", got ${shown(timing ?? first)}`,
      );
    const [startText, rest] = timing.split("-->", 2) as [string, string];
    const [endText = "", ...settings] = rest.trim().split(/[ \t]+/);
    const start = WEBVTT_TIME.exec(startText.trim());
    const end = WEBVTT_TIME.exec(endText);
    const line = block.at + timingAt;
    if (!start)
      throw new CaptionFileError(
        line,
        `the cue's start ${shown(startText.trim())} is not a WebVTT time (hh:mm:ss.ttt or mm:ss.ttt)`,
      );
    if (!end)
      throw new CaptionFileError(
        line,
        `the cue's end ${shown(endText)} is not a WebVTT time (hh:mm:ss.ttt or mm:ss.ttt)`,
      );
    const payload = block.lines.slice(timingAt + 1);
    const arrow = payload.findIndex((l) => l.includes("-->"));
    if (arrow >= 0)
      throw new CaptionFileError(
        line + 1 + arrow,
        'a cue\'s text cannot contain "-->": separate cues with a blank line',
      );
    const cue: Cue = {
      start: seconds(start, start[4]!),
      end: seconds(end, end[4]!),
      text: payload.join("\n"),
    };
    if (hasId) cue.id = first;
    const kept = keptSettings(settings.join(" "));
    if (kept) cue.settings = kept;
    checkCue(cue, cues.at(-1), line, cues.length);
    cues.push(cue);
  }
  return cues;
}

/** SubRip's text as WebVTT cue text: its b, i and u tags kept, the rest escaped or left out. */
function subripText(lines: string[]): string {
  return lines
    .join("\n")
    .replace(/\{\\[^}]*\}/g, "")
    .replace(/<\/?font[^>]*>/gi, "")
    .replace(/&/g, "&amp;")
    .replace(/<(?!\/?[biu]>)/gi, "&lt;")
    .replace(/<(\/?)([BIU])>/g, (_, slash: string, tag: string) => `<${slash}${tag.toLowerCase()}>`)
    .replace(/-->/g, "--&gt;");
}

function readSubRip(text: string): Cue[] {
  const lines = linesOf(text);
  if (/^WEBVTT(?:[ \t]|$)/.test(lines[0] ?? ""))
    throw new CaptionFileError(1, "this is a WebVTT file: send it as text/vtt");
  const cues: Cue[] = [];
  for (const block of blocksOf(lines, 0)) {
    // The cue's number comes first; some files leave it out.
    const numbered = !block.lines[0]!.includes("-->");
    if (numbered && !/^\s*\d+\s*$/.test(block.lines[0]!))
      throw new CaptionFileError(
        block.at,
        `expected the cue's number (1, 2, …) or its times ("00:00:01,000 --> 00:00:04,000"), got ${shown(block.lines[0]!)}`,
      );
    const timingAt = numbered ? 1 : 0;
    const line = block.at + timingAt;
    const timing = block.lines[timingAt];
    if (timing === undefined || !timing.includes("-->"))
      throw new CaptionFileError(
        line,
        `expected the cue's times such as "00:00:01,000 --> 00:00:04,000", got ${shown(timing ?? "")}`,
      );
    const [startText, rest] = timing.split("-->", 2) as [string, string];
    const endText = rest.trim().split(/[ \t]+/)[0] ?? "";
    const start = SUBRIP_TIME.exec(startText.trim());
    const end = SUBRIP_TIME.exec(endText);
    if (!start)
      throw new CaptionFileError(
        line,
        `the cue's start ${shown(startText.trim())} is not a SubRip time (hh:mm:ss,mmm)`,
      );
    if (!end)
      throw new CaptionFileError(
        line,
        `the cue's end ${shown(endText)} is not a SubRip time (hh:mm:ss,mmm)`,
      );
    const cue: Cue = {
      start: seconds(start, start[4]!),
      end: seconds(end, end[4]!),
      text: subripText(block.lines.slice(timingAt + 1)),
    };
    checkCue(cue, cues.at(-1), line, cues.length);
    cues.push(cue);
  }
  return cues;
}

/**
 * The cues of a caption file, or a CaptionFileError naming the line of the first mistake. A
 * file with no cue is refused: a track shows nothing without one.
 */
export function parseCaptionFile(text: string, format: CaptionFormat): Cue[] {
  const cues = format === "webvtt" ? readWebVtt(text) : readSubRip(text);
  if (cues.length === 0) throw new CaptionFileError(null, "the file has no cue");
  return cues;
}

/** The cues as a WebVTT file (what the service stores and serves). */
export function writeWebVtt(cues: readonly Cue[]): string {
  const blocks = cues.map((c) =>
    [
      ...(c.id ? [c.id] : []),
      `${formatTimestamp(c.start)} --> ${formatTimestamp(c.end)}${c.settings ? ` ${c.settings}` : ""}`,
      // A blank line would end the cue: blank lines inside its text are left out.
      ...c.text.split("\n").filter((l) => l.trim() !== ""),
    ].join("\n"),
  );
  return `WEBVTT\n\n${blocks.join("\n\n")}\n`;
}

/** A cue's text as words are read: tags out, the escapes WebVTT defines decoded, one line. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|nbsp|lrm|rlm);/g, (_, name: string) =>
      name === "amp" ? "&" : name === "lt" ? "<" : name === "gt" ? ">" : name === "nbsp" ? " " : "",
    )
    .replace(/\s+/g, " ")
    .trim();
}
