// The file names of a video's stream (GET /hls/{contentKey}/{version}/{file}), read and written
// in one place. Whatever reads a requested name (the route's validation, the media gates, the
// cache policy, the token rewrite, the domain) parses it here into a StreamFile, and whatever
// writes one (the HLS playlists, the DASH manifest, the record's urlHLS, the embed page's
// subtitle tracks) writes it here from a StreamFile. As in nginx-vod-module's
// ngx_http_vod_hls_parse_uri_file_name, the name alone says what is asked: which kind of file,
// of which rung, which track, which number, which language.
//
// FILES is the one table of names: a new form of an existing kind is one template there; a new
// kind (a low-latency HLS part, a subtitle track the service keeps) is one entry there and one
// line of StreamFile; a new field (a part's number, a language) is one slot of SLOTS besides.
// The route matches exactly what parseStreamFile parses: its pattern is built from the same
// templates. The /live/ viewer's files (index.m3u8, recording.m3u8, u<n>.<ext>: domain/live/
// files.ts) are another family of names; they can join as a second table of the same shape
// (compileForms) when the live routes move to it.

import { LANGUAGE_CODE_PATTERN } from "./captions";

/**
 * The track a media file holds: both in one (HLS's muxed segments), or one each (DASH's
 * AdaptationSets; a rung's DASH files hold its video, the audio being the source's).
 */
export type Track = "muxed" | "video" | "audio";

/** What a stream file name stands for. `rung` is a transcoded rung (`r360`), null for the source. */
export type StreamFile =
  /** The multivariant playlist (the record's urlHLS): the variants and the subtitles. */
  | { kind: "master" }
  /** A variant's media playlist: every segment, VOD. */
  | { kind: "media-playlist"; rung: string | null }
  /** The playlist of the record's n-th WebVTT file (one segment: the file). */
  | { kind: "subtitle-playlist"; number: number }
  /** The record's n-th WebVTT file, as the service passes it on. */
  | { kind: "subtitle"; number: number }
  /** The playlist of the caption track the service keeps in `language` (one segment: the file). */
  | { kind: "caption-playlist"; language: string }
  /** The caption track the service keeps in `language`, as WebVTT (docs/api.md "Captions"). */
  | { kind: "caption"; language: string }
  /** The DASH manifest. */
  | { kind: "manifest" }
  /** An init segment (HLS's EXT-X-MAP, DASH's initialization). */
  | { kind: "init"; rung: string | null; track: Track }
  /** Media segment `number` (from 0). */
  | { kind: "segment"; rung: string | null; track: Track; number: number };

export type StreamFileKind = StreamFile["kind"];

/**
 * What a file's body is, which decides how it is kept and rewritten: a playlist or the manifest
 * (text naming other files: a signed request's token is written into them; moved to the current
 * packager revision), subtitles (text), or media bytes (immutable under their version).
 */
export type StreamBody = "playlist" | "manifest" | "subtitles" | "media";

type Field = "rung" | "track" | "number" | "language";

/** A part of a name that carries a field; every other part of a template is literal. */
type Slot =
  | { field: "rung" | "track" | "language"; pattern: string; shown: string }
  | { field: "number"; digits: number; shown: string };

const SLOTS = {
  /** A transcoded rung: `r` and its height (media/renditions/ladder.ts). */
  rung: { field: "rung", pattern: "r[1-9]\\d{1,3}", shown: "r<height>" },
  /** One track of the source (DASH). */
  track: { field: "track", pattern: "video|audio", shown: "(video|audio)" },
  /** A rung's one track: its video (its audio is the source's). */
  video: { field: "track", pattern: "video", shown: "video" },
  /** A segment's number: up to 7 digits (the packager cuts at most 20,000). */
  segment: { field: "number", digits: 7, shown: "<n>" },
  /** A subtitle file's place in the record's list: up to 4 digits. */
  subtitle: { field: "number", digits: 4, shown: "<n>" },
  /** A caption track's language (shared/captions.ts): `en`, `pt-BR`. */
  language: { field: "language", pattern: LANGUAGE_CODE_PATTERN, shown: "<language>" },
} as const satisfies Record<string, Slot>;

type SlotName = keyof typeof SLOTS;

/** A field's value when the form's name has no slot for it. */
const DEFAULTS: Partial<Record<Field, string | null>> = { rung: null, track: "muxed" };

interface KindSpec {
  body: StreamBody;
  /** Whether the file shows the video's record (its subtitles, its ready rungs) besides its file. */
  showsRecord: boolean;
  /** The fields of the kind's StreamFile. */
  fields: readonly Field[];
  /** Its names: literal text and `{slot}`s, tried in order. */
  forms: readonly string[];
}

/** Every file of a stream, by kind: its body, whether it shows the record, its names. */
const FILES = {
  master: { body: "playlist", showsRecord: true, fields: [], forms: ["master.m3u8"] },
  "media-playlist": {
    body: "playlist",
    showsRecord: false,
    fields: ["rung"],
    forms: ["video.m3u8", "{rung}-video.m3u8"],
  },
  "subtitle-playlist": {
    body: "playlist",
    showsRecord: true,
    fields: ["number"],
    forms: ["subtitles-{subtitle}.m3u8"],
  },
  subtitle: {
    body: "subtitles",
    showsRecord: true,
    fields: ["number"],
    forms: ["subtitles-{subtitle}.vtt"],
  },
  "caption-playlist": {
    body: "playlist",
    showsRecord: true,
    fields: ["language"],
    forms: ["captions-{language}.m3u8"],
  },
  caption: {
    body: "subtitles",
    showsRecord: true,
    fields: ["language"],
    forms: ["captions-{language}.vtt"],
  },
  manifest: { body: "manifest", showsRecord: true, fields: [], forms: ["manifest.mpd"] },
  init: {
    body: "media",
    showsRecord: false,
    fields: ["rung", "track"],
    forms: ["init.mp4", "{track}-init.mp4", "{rung}-init.mp4", "{rung}-{video}-init.mp4"],
  },
  segment: {
    body: "media",
    showsRecord: false,
    fields: ["rung", "track", "number"],
    forms: [
      "{segment}.m4s",
      "{track}-{segment}.m4s",
      "{rung}-{segment}.m4s",
      "{rung}-{video}-{segment}.m4s",
    ],
  },
} as const satisfies Record<StreamFileKind, KindSpec>;

/** One name form, compiled. */
interface Form {
  kind: StreamFileKind;
  fields: readonly Field[];
  /** Literal text and slots, in order. */
  pieces: readonly (string | Slot)[];
  /** The name, anchored, a named group per field. */
  parse: RegExp;
  /** The same without groups: a branch of the route's pattern. */
  source: string;
  /** Its file extension (`.m4s`): the forms a name may have are looked up by it. */
  extension: string;
  /** How the route's message shows it: `r<height>-video.m3u8`. */
  shown: string;
}

const escapeLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const slotPattern = (slot: Slot) =>
  slot.field === "number" ? `0|[1-9]\\d{0,${slot.digits - 1}}` : slot.pattern;
/** Each slot's spelling, anchored: what a written value must match. */
const slotSpelling = new Map<Slot, RegExp>(
  Object.values(SLOTS).map((slot) => [slot, new RegExp(`^(?:${slotPattern(slot)})$`)]),
);

/** Compiles a table of kinds into its forms; a mistake in the table throws at load. */
function compileForms(table: Record<StreamFileKind, KindSpec>): Form[] {
  return Object.entries(table).flatMap(([kind, spec]) =>
    spec.forms.map((template): Form => {
      const pieces = template
        .split(/(\{[a-z]+\})/)
        .filter((part) => part !== "")
        .map((part): string | Slot =>
          part.startsWith("{") ? SLOTS[part.slice(1, -1) as SlotName] : part,
        );
      const slots = pieces.filter((p): p is Slot => typeof p !== "string");
      const fields = slots.map((s) => s.field);
      if (
        slots.some((s) => s === undefined) ||
        new Set(fields).size !== fields.length ||
        fields.some((f) => !spec.fields.includes(f)) ||
        spec.fields.some((f) => !fields.includes(f) && !(f in DEFAULTS))
      )
        throw new Error(`stream file form ${template} does not fit the fields of ${kind}`);
      const regex = (named: boolean) =>
        pieces
          .map((p) =>
            typeof p === "string"
              ? escapeLiteral(p)
              : `(${named ? `?<${p.field}>` : "?:"}${slotPattern(p)})`,
          )
          .join("");
      return {
        kind: kind as StreamFileKind,
        fields: spec.fields,
        pieces,
        parse: new RegExp(`^${regex(true)}$`),
        source: regex(false),
        extension: template.slice(template.lastIndexOf(".")),
        shown: pieces.map((p) => (typeof p === "string" ? p : p.shown)).join(""),
      };
    }),
  );
}

const FORMS = compileForms(FILES);
const formsByExtension = new Map<string, Form[]>();
for (const form of FORMS)
  formsByExtension.set(form.extension, [...(formsByExtension.get(form.extension) ?? []), form]);

/** The route's pattern: exactly the names parseStreamFile parses. */
export const STREAM_FILE_PATTERN = new RegExp(`^(?:${FORMS.map((f) => f.source).join("|")})$`);
/** The forms a stream file name takes, as the route's message shows them. */
export const STREAM_FILE_FORMS: readonly string[] = FORMS.map((f) => f.shown);

/** What a stream file name stands for; null for a name that is none of the forms. */
export function parseStreamFile(name: string): StreamFile | null {
  const forms = formsByExtension.get(name.slice(name.lastIndexOf(".")));
  if (!forms) return null;
  for (const form of forms) {
    const match = form.parse.exec(name);
    if (!match) continue;
    const file: Record<string, unknown> = { kind: form.kind };
    for (const field of form.fields) {
      const value = match.groups?.[field];
      file[field] =
        value === undefined ? DEFAULTS[field] : field === "number" ? Number(value) : value;
    }
    return file as StreamFile;
  }
  return null;
}

const valueOf = (file: StreamFile, field: Field) =>
  (file as unknown as Record<Field, string | number | null>)[field];

/** The first form of the file's kind that can write it: each field in its slot, or at its default. */
function formOf(file: StreamFile): Form {
  for (const form of FORMS) {
    if (form.kind !== file.kind) continue;
    const fits = form.fields.every((field) => {
      const value = valueOf(file, field);
      const slot = form.pieces.find((p): p is Slot => typeof p !== "string" && p.field === field);
      if (!slot) return value === DEFAULTS[field];
      return value !== DEFAULTS[field] && slotSpelling.get(slot)!.test(String(value));
    });
    if (fits) return form;
  }
  throw new RangeError(`no stream file name for ${JSON.stringify(file)}`);
}

/** The name of a stream file (parseStreamFile reads it back). */
export function streamFileName(file: StreamFile): string {
  return formOf(file)
    .pieces.map((p) => (typeof p === "string" ? p : String(valueOf(file, p.field))))
    .join("");
}

type Numbered = Extract<StreamFile, { number: number }>;
type WithoutNumber<F> = F extends unknown ? Omit<F, "number"> : never;
/** DASH's SegmentTemplate placeholder for a segment's number. */
export const DASH_NUMBER = "$Number$";

/**
 * The names of a series of numbered files (a variant's segments, the subtitle files), the number
 * left open: `names(7)` is file 7's name, `names(DASH_NUMBER)` DASH's SegmentTemplate. Resolved
 * once, so a playlist of 20,000 segments writes each name by concatenation.
 */
export function numberedNames(
  series: WithoutNumber<Numbered>,
): (n: number | typeof DASH_NUMBER) => string {
  const form = formOf({ ...series, number: 0 } as Numbered);
  const at = form.pieces.findIndex((p) => typeof p !== "string" && p.field === "number");
  const write = (pieces: readonly (string | Slot)[]) =>
    pieces
      .map((p) => (typeof p === "string" ? p : String(valueOf(series as StreamFile, p.field))))
      .join("");
  const before = write(form.pieces.slice(0, at));
  const after = write(form.pieces.slice(at + 1));
  const max = 10 ** (form.pieces[at] as Extract<Slot, { field: "number" }>).digits - 1;
  return (n) => {
    if (n !== DASH_NUMBER && !(Number.isInteger(n) && n >= 0 && n <= max))
      throw new RangeError(`no stream file number ${n}: from 0 to ${max}`);
    return `${before}${n}${after}`;
  };
}

/** What the file's body is (StreamBody). */
export const streamBody = (file: StreamFile): StreamBody => FILES[file.kind].body;

/** Whether the file shows the video's record (its subtitles, its ready rungs) besides its file. */
export const showsRecord = (file: StreamFile): boolean => FILES[file.kind].showsRecord;

/** A rung's name: `r` and its height (`r360`), the prefix of its files. */
export const rungName = (height: number) => `r${height}`;

/** The path of a stream file: under the stream's version, beside the files it lists. */
export const streamPath = (contentKey: string, version: string, file: StreamFile) =>
  `/hls/${contentKey}/${version}/${streamFileName(file)}`;
