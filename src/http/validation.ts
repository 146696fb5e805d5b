// zod validation failures of any route answer 400 with a message naming the field.
import type { Context } from "hono";
import type { ZodError } from "zod";
import { invalid } from "../shared/errors";
import { describeZodError } from "../shared/validation";

/** defaultHook for OpenAPIHono (see createRouter). */
export function validationHook(result: { success: boolean; error?: unknown }, _c: Context): void {
  if (!result.success) throw invalid(describeZodError(result.error as ZodError));
}
