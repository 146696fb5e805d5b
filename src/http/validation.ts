// Turns zod validation failures into 400s whose message names the offending field.
import type { Context } from "hono";
import type { ZodError } from "zod";
import { badRequest } from "./errors";

export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/** defaultHook for OpenAPIHono: every route's zod validation answers the same way. */
export function validationHook(result: { success: boolean; error?: unknown }, _c: Context): void {
  if (!result.success) throw badRequest(describeZodError(result.error as ZodError));
}
