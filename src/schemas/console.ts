// zod schemas of the publisher console's endpoints: sessions, the organization's own record,
// credential rotation, the library listing and the names in use (docs/console.md).
import { z } from "@hono/zod-openapi";
import {
  CONTENT_STATUSES,
  ENTITLEMENTS,
  LIBRARY_SORTS,
  MEMBER_ROLES,
  PLANS,
  SIGN_IN_METHODS,
} from "../shared/vocabulary";
import { contentKeySchema, required, text } from "./common";
import { contentObject } from "./content";

export const signInBody = z
  .strictObject({
    syncCode: text(200).optional(),
    apiKey: text(200).optional(),
    apiSecret: text(500).optional(),
    apiToken: text(500)
      .optional()
      .openapi({ description: "Instead of the sync code, API key and secret" }),
    mmiKey: text(200)
      .optional()
      .openapi({ description: "Sign in to this sub-organization's scope only" }),
  })
  .refine(
    (b) =>
      (b.apiToken !== undefined) !==
      (b.syncCode !== undefined || b.apiKey !== undefined || b.apiSecret !== undefined),
    {
      message: "give either apiToken, or syncCode, apiKey and apiSecret",
    },
  )
  .refine(
    (b) =>
      b.apiToken !== undefined ||
      (b.syncCode !== undefined && b.apiKey !== undefined && b.apiSecret !== undefined),
    {
      message: "syncCode, apiKey and apiSecret are required together",
    },
  )
  .openapi("ConsoleSignIn");

export const consoleSession = z
  .object({
    organizationKey: z.string(),
    name: z.string(),
    syncCode: z
      .string()
      .openapi({ description: "For the read and report endpoints, which take the sync code" }),
    subOrganization: z.object({ name: z.string(), mmiKey: z.string() }).nullable(),
    csrfToken: z.string().openapi({
      description: "Send as X-CSRF-Token on every request the session cookie authenticates",
    }),
    expiresAt: z.string(),
    id: z.string().nullable().openapi({ description: "The session's id (GET /v2/sessions)" }),
    method: z.enum(SIGN_IN_METHODS).openapi({ description: "How it was opened" }),
    member: z
      .object({ id: z.string(), name: z.string(), email: z.string(), role: z.enum(MEMBER_ROLES) })
      .nullable()
      .openapi({ description: "The member signed in; null: the API key and secret (owner)" }),
    role: z.enum(MEMBER_ROLES),
    capabilities: z.array(z.string()).openapi({
      description:
        "What the session may do (docs/api.md: the roles matrix); the console hides the rest",
    }),
  })
  .openapi("ConsoleSession");

export const consoleSessionStatus = z
  .object({
    signedIn: z.boolean(),
    session: consoleSession.nullable().openapi({
      description: "The session, as GET /v2/console/session answers it; null when signed out",
    }),
  })
  .openapi("ConsoleSessionStatus");

export const ownOrganization = z
  .object({
    organizationKey: z.string(),
    name: z.string(),
    syncCode: z.string(),
    apiKey: z.string(),
    plan: z.enum(PLANS),
    requestsPerMinute: z.number().openapi({
      description:
        "The plan's limit; this answer's RateLimit-Remaining header tells the current minute's use",
    }),
    entitlements: z.array(z.enum(ENTITLEMENTS)),
    network: z.string().nullable(),
    playerTokensRequired: z.boolean(),
    createdAt: z.string(),
    subOrganizations: z.array(
      z.object({ name: z.string(), mmiKey: z.string(), createdAt: z.string() }),
    ),
  })
  .openapi("OwnOrganization");

export const ROTATABLE = ["apiSecret", "apiToken"] as const;

export const selfRotateBody = z
  .strictObject({
    rotate: z
      .array(
        z.enum(ROTATABLE, { error: `must be one of ${ROTATABLE.join(", ")}` }),
        required("an array"),
      )
      .min(1, "name at least one credential")
      .max(2, "at most two credentials"),
  })
  .openapi("RotateOwnCredentials");

export const selfRotateResponse = z
  .object({
    rotated: z.array(z.enum(ROTATABLE)),
    credentials: z
      .object({ apiSecret: z.string().optional(), apiToken: z.string().optional() })
      .openapi({ description: "Shown once" }),
  })
  .openapi("RotatedCredentials");

const labelName = z.string().min(1, "must not be empty").max(200, "must be at most 200 characters");

export const libraryQuery = z.object({
  contentKey: contentKeySchema
    .optional()
    .openapi({ description: "One content (whatever its status)" }),
  status: z
    .enum(CONTENT_STATUSES, { error: `must be one of ${CONTENT_STATUSES.join(", ")}` })
    .optional(),
  search: z
    .string()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .optional()
    .openapi({
      description: "Words of the title or description (the last one a prefix), or a content key",
    }),
  category: labelName.optional(),
  tag: labelName.optional(),
  event: labelName.optional(),
  sort: z
    .enum(LIBRARY_SORTS, { error: `must be one of ${LIBRARY_SORTS.join(", ")}` })
    .default("created")
    .openapi({
      description: "Order of the listing: created (default), title, duration, published",
    }),
  order: z.enum(["asc", "desc"], { error: "must be asc or desc" }).optional().openapi({
    description: "Direction: desc for created, duration and published, asc for title by default",
  }),
  cursor: z
    .string()
    .max(300, "must be at most 300 characters")
    .optional()
    .openapi({ description: "nextCursor of the previous page (of the same sort and order)" }),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(25),
});

export const libraryPage = z
  .object({
    contents: z.array(
      contentObject.extend({
        width: z.number().nullable(),
        height: z.number().nullable(),
        serviceCategories: z
          .array(z.string())
          .openapi({ description: "Set by the service (operator), read-only" }),
        plays: z.number().openapi({
          description: "video_played over the content's life (the statistics' month totals)",
        }),
        syndications: z
          .array(
            z.object({
              name: z.string(),
              startTime: z.string(),
              stopTime: z.string().nullable(),
              geos: z.array(z.string()),
            }),
          )
          .openapi({
            description: "Syndication windows to the network (operator-set), by start time",
          }),
      }),
    ),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as cursor for the next page; null on the last page" }),
  })
  .openapi("LibraryPage");

const nameCount = z.array(
  z.object({
    name: z.string(),
    videos: z.number().openapi({ description: "Published videos carrying it" }),
  }),
);
export const labelNames = z
  .object({ categories: nameCount, tags: nameCount, events: nameCount })
  .openapi("LabelNames");
