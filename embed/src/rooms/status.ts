// <evc-status>: the player's one line for the viewer and for screen readers (role=status):
// the ad break's announcements, a stream that fell back to the MP4, a video that could not be
// loaded. Alone on the player's surface (showUnavailable), it says why a video cannot be played:
// the service's refusal code (a 403's `refusal`) in the viewer's words.
import type { components } from "../../../sdk/client/src/generated/openapi";
import { Room } from "../core/room";

/** Why a video cannot be played: the service's refusal, or that it could not be loaded. */
export type Unavailable = NonNullable<components["schemas"]["Error"]["refusal"]> | "unavailable";

/**
 * The viewer's words for each, by language (a BCP 47 tag's primary subtag). A language is one
 * more entry; one without an entry reads English.
 */
const WORDS: Record<string, Record<Unavailable, string>> = {
  en: {
    country: "This video is not available in your country.",
    site: "This video is not available on this site.",
    token_required: "This video needs a valid link to play.",
    token_expired: "This link has expired. Reload the page to watch the video.",
    token_invalid: "This link is not valid for this video.",
    window_not_open: "This video is not available yet.",
    window_closed: "This video is no longer available.",
    unavailable: "The video could not be loaded.",
  },
  fr: {
    country: "Cette vidéo n'est pas disponible dans votre pays.",
    site: "Cette vidéo n'est pas disponible sur ce site.",
    token_required: "Cette vidéo ne se lit qu'avec un lien valide.",
    token_expired: "Ce lien a expiré. Rechargez la page pour voir la vidéo.",
    token_invalid: "Ce lien n'est pas valide pour cette vidéo.",
    window_not_open: "Cette vidéo n'est pas encore disponible.",
    window_closed: "Cette vidéo n'est plus disponible.",
    unavailable: "La vidéo n'a pas pu être chargée.",
  },
};

/** `code` in the first of `languages` the player has words in, else in English. */
export function unavailableWords(code: Unavailable, languages: readonly string[]): string {
  const words = languages.map((l) => WORDS[l.split("-")[0]!.toLowerCase()]).find(Boolean);
  return (words ?? WORDS.en!)[code] ?? WORDS.en!.unavailable;
}

export class EvcStatus extends Room {
  protected build() {
    this.classList.add("evc-status");
    this.setAttribute("role", "status");
  }

  say(text: string) {
    this.textContent = text;
  }
}

/**
 * Says alone in `box` (the player's surface, nothing else in it) why the video cannot be
 * played; `wrap` puts the line in what the host shows (the in-page element's slot).
 */
export function showUnavailable(
  box: Element,
  code: Unavailable,
  languages: readonly string[],
  wrap: (status: EvcStatus) => Element = (status) => status,
) {
  const status = document.createElement("evc-status") as EvcStatus;
  box.replaceChildren(wrap(status));
  status.classList.add("evc-unavailable");
  status.say(unavailableWords(code, languages));
}
