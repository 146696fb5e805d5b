// The vocabulary of captions (docs/api.md "Captions"): language codes, the two kinds of text
// track, the labels of the tracks the service makes, and the limits every layer checks alike.

/**
 * A caption or subtitle language: an ISO 639-1 code and an optional region or script subtag
 * (`en`, `pt-BR`, `zh-Hant`): what records' `subtitles` maps are keyed by, and a slot of the
 * stream's file names (`captions-pt-BR.vtt`).
 */
export const LANGUAGE_CODE_PATTERN = "[a-z]{2}(?:-[A-Za-z0-9]{2,8})?";
export const LANGUAGE_CODE = new RegExp(`^${LANGUAGE_CODE_PATTERN}$`);

/**
 * subtitles: the dialogue for viewers who hear it but not its language; captions: for viewers
 * who do not hear it (dialogue, speakers, sounds). HTML's <track kind>, HLS's
 * CHARACTERISTICS and DASH's Role follow from it.
 */
export const CAPTION_KINDS = ["subtitles", "captions"] as const;
export type CaptionKind = (typeof CAPTION_KINDS)[number];

/** Languages per video, the publisher's hosted files and the service's tracks together. */
export const CAPTION_LANGUAGES_MAX = 100;
/** A caption file as uploaded (WebVTT or SubRip): a feature film's is a few hundred KB. */
export const CAPTION_FILE_MAX_BYTES = 2 * 1024 * 1024;
/** Cues in one track (a two-hour film has about 1,500). */
export const CAPTION_CUES_MAX = 20_000;
/**
 * The latest time a cue may hold: 100 hours, beyond any video or live recording the service
 * keeps, so a time is a number that writes back as it was read (not 10^20 hours).
 */
export const CAPTION_TIME_MAX_SECONDS = 100 * 3600;
/** Characters of a label ("English (auto-generated)", "Français — SDH"). */
export const CAPTION_LABEL_MAX = 100;

/** A language's name in English ("English", "Brazilian Portuguese"); the code when unknown. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The label of a track made from the audio: "English (auto-generated)", as players show it. */
export const automaticLabel = (code: string) => `${languageName(code)} (auto-generated)`;

/** A track the service keeps, as the video's row lists it for its readers (records, playlists, the player). */
export interface KeptCaption {
  language: string;
  label: string;
  kind: CaptionKind;
  default: boolean;
  automatic: boolean;
  /** Moves on at each save: the stored text's version. */
  version: number;
}
