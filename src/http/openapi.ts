// Pieces every route definition shares: JSON bodies and responses, the two error shapes, and
// the security requirements of each credential class (spec 5, docs/design.md).
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { REFUSALS } from "../shared/errors";
import type { AppEnv } from "./context";

export const messageError = z.object({ message: z.string() }).openapi("MessageError");
export const koError = z
  .object({
    status: z.literal("KO"),
    error: z.string(),
    refusal: z.enum(REFUSALS).optional().openapi({
      description:
        "On a 403 that refuses a viewer a video (its media, embed page or player data): why, for a player to tell the viewer (token_required, token_expired, token_invalid: signed playback; country, window_not_open, window_closed, site: playback rights or the token's claims)",
    }),
  })
  .openapi("Error");

export const jsonContent = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const DESCRIPTIONS = {
  400: "Invalid input (the error names the parameter)",
  401: "Missing or wrong credentials",
  403: "Missing entitlement for this parameter or report",
  404: "Does not exist",
  409: "Conflicts with the current state",
  411: "Content-Length is required",
  413: "Body too large",
  415: "The body's Content-Type is not one the endpoint takes (the error names them)",
  416: "Range not satisfiable",
  429: "Rate limit exceeded (Retry-After says when to try again)",
  502: "A file the service reads from elsewhere could not be read (the error says why)",
  503: "Not available (configuration)",
} as const;
type ErrorStatus = keyof typeof DESCRIPTIONS;

/** Error responses in the {status: "KO", error} shape (every endpoint but the content flow). */
export function koErrors<S extends ErrorStatus>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((s) => [s, jsonContent(koError, DESCRIPTIONS[s])])) as {
    [K in S]: ReturnType<typeof jsonContent<typeof koError>>;
  };
}

/** Error responses in the {message} shape (E1–E5 and the upload URLs). */
export function messageErrors<S extends ErrorStatus>(...statuses: S[]) {
  return Object.fromEntries(
    statuses.map((s) => [s, jsonContent(messageError, DESCRIPTIONS[s])]),
  ) as {
    [K in S]: ReturnType<typeof jsonContent<typeof messageError>>;
  };
}

export const notModifiedResponse = {
  304: { description: "Not modified (If-None-Match matched the ETag)" },
};

type SecurityRequirements = Record<string, string[]>[];

/** Security requirements by credential class (one entry per accepted alternative). */
export const SECURITY: Record<
  "public" | "read" | "report" | "write" | "session" | "player" | "admin",
  SecurityRequirements
> = {
  /** Player traffic and public files: no credentials. */
  public: [],
  /** E6, E7: the sync code. */
  read: [{ syncCodeAuth: [] }],
  /** E8, E9, E11–E14, E16: organization_key and the sync code of the same organization. */
  report: [{ organizationKey: [], syncCodeAuth: [] }],
  /** E1–E5 and every other write: sync code + API key + secret, or an API token, or the console's session (docs/console.md). */
  write: [
    { syncCodeAuth: [], apiKeyAuth: [], apiSecretAuth: [] },
    { bearerAuth: [] },
    { consoleSession: [], csrfToken: [] },
  ],
  /** The console's session endpoints: the session cookie (its CSRF token too, to sign out). */
  session: [{ consoleSession: [] }],
  /** Event ingestion: the sync code as header or ?sync= (sendBeacon cannot set headers). */
  player: [{ syncCodeAuth: [] }, { syncCodeQuery: [] }],
  /** The operator API: ADMIN_TOKEN. */
  admin: [{ adminAuth: [] }],
};

export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  const r = app.openAPIRegistry;
  r.registerComponent("securitySchemes", "syncCodeAuth", {
    type: "apiKey",
    in: "header",
    name: "X-Service-Sync-Code",
  });
  r.registerComponent("securitySchemes", "syncCodeQuery", {
    type: "apiKey",
    in: "query",
    name: "sync",
  });
  r.registerComponent("securitySchemes", "apiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "X-Service-Api-Key",
  });
  r.registerComponent("securitySchemes", "apiSecretAuth", {
    type: "apiKey",
    in: "header",
    name: "X-Service-Api-Secret",
  });
  r.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "API token",
  });
  r.registerComponent("securitySchemes", "adminAuth", {
    type: "http",
    scheme: "bearer",
    description: "ADMIN_TOKEN",
  });
  r.registerComponent("securitySchemes", "consoleSession", {
    type: "apiKey",
    in: "cookie",
    name: "evc_session",
    description:
      "The publisher console's session (POST /v2/console/session); same-origin browsers only",
  });
  r.registerComponent("securitySchemes", "csrfToken", {
    type: "apiKey",
    in: "header",
    name: "X-CSRF-Token",
    description: "The session's csrfToken",
  });
  r.registerComponent("securitySchemes", "organizationKey", {
    type: "apiKey",
    in: "query",
    name: "organization_key",
  });
}
