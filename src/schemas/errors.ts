// Error responses of the non-content endpoints, for the OpenAPI document.
import { koError } from "./content";

const ko = (description: string) => ({ description, content: { "application/json": { schema: koError } } });

export const koErrors = {
  400: ko("Invalid parameter (the error names it)"),
  401: ko("Missing or wrong credentials"),
  403: ko("A gated parameter or report without the entitlement"),
  429: ko("Rate limit exceeded (Retry-After)"),
};
