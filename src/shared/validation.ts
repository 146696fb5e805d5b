// One way to say what is wrong with an input that failed its zod schema: "path: problem" for
// the first few issues (a huge invalid body must not become a huge error message).
import type { ZodError } from "zod";

const MAX_ISSUES = 5;

export function describeZodError(error: ZodError): string {
  const described = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length - MAX_ISSUES;
  return (
    described.join("; ") + (more > 0 ? `; and ${more} more problem${more === 1 ? "" : "s"}` : "")
  );
}
