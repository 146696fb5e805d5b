// Errors of the application's rules, free of HTTP: the domain throws them, and one place
// (src/http/errors.ts) maps each kind to a status and to the route's error shape.

export type ProblemKind = "invalid" | "not_found" | "conflict" | "forbidden";

export class DomainError extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
    /** Why a viewer is refused a video (a 403 of its media, embed or player data). */
    readonly refusal?: Refusal,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/**
 * Why a viewer is refused a video, beside the message for developers: what the service's player
 * turns into words a viewer reads (embed/src/rooms/status.ts), and a publisher's own player can.
 * A token's claims refuse as the rights do (its country, its site).
 */
export const REFUSALS = [
  "token_required",
  "token_expired",
  "token_invalid",
  "country",
  "window_not_open",
  "window_closed",
  "site",
] as const;
export type Refusal = (typeof REFUSALS)[number];

/** The input breaks a rule (HTTP 400); the message names the parameter. */
export const invalid = (message: string) => new DomainError("invalid", message);
/** What the input names does not exist for this caller (HTTP 404). */
export const notFound = (message: string) => new DomainError("not_found", message);
/** The request clashes with the current state (HTTP 409). */
export const conflict = (message: string) => new DomainError("conflict", message);
/** The caller lacks an entitlement for this (HTTP 403). */
export const forbidden = (message: string) => new DomainError("forbidden", message);
/** A viewer may not play this video (HTTP 403), and why (`refusal` in the answer). */
export const refused = (refusal: Refusal, message: string) =>
  new DomainError("forbidden", message, refusal);

/** A short, printable prefix of untrusted input for error messages (never the whole of it). */
export function excerpt(value: string, max = 40): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
