// Building blocks of the zod schemas: field messages and envelopes.
import { z } from "@hono/zod-openapi";
import { CONTENT_KEY_PATTERN } from "../shared/ids";

/** "is required" when the field is absent, `must be <expected>` for a wrong type. */
export const required = (expected: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? "is required" : `must be ${expected}`,
});

/** A non-empty string of at most `max` characters. */
export const text = (max: number) =>
  z
    .string(required("a string"))
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

export const contentKeySchema = z
  .string(required("a string"))
  .regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits")
  .openapi({ example: "abc123XY" });

/** {status: "ok", message: "ok", data} of the report, search and statistics endpoints. */
export const okEnvelope = <T extends z.ZodType>(data: T, name: string) =>
  z.object({ status: z.literal("ok"), message: z.literal("ok"), data }).openapi(name);
