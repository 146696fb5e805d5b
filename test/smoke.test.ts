import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves the OpenAPI document", async () => {
  const res = await SELF.fetch("http://example.com/openapi.json");
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toContain("/v2/content");
  expect(res.headers.get("Server-Timing")).toMatch(/d1;dur=/);
});
