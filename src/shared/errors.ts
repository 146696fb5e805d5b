// Errors of the application's rules, free of HTTP: the domain throws them, and one place
// (src/http/errors.ts) maps each kind to a status and to the route's error shape.

export type ProblemKind = "invalid" | "not_found" | "conflict" | "forbidden";

export class DomainError extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** The input breaks a rule (HTTP 400); the message names the parameter. */
export const invalid = (message: string) => new DomainError("invalid", message);
/** What the input names does not exist for this caller (HTTP 404). */
export const notFound = (message: string) => new DomainError("not_found", message);
/** The request clashes with the current state (HTTP 409). */
export const conflict = (message: string) => new DomainError("conflict", message);
/** The caller lacks an entitlement for this (HTTP 403). */
export const forbidden = (message: string) => new DomainError("forbidden", message);

/** A short, printable prefix of untrusted input for error messages (never the whole of it). */
export function excerpt(value: string, max = 40): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
