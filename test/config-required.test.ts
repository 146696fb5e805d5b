// PUBLIC_BASE_URL is required (docs/operations.md "Required settings"): left empty, as
// wrangler.toml ships it, every request answers 503 naming the setting, and wrangler.toml's
// comment says so (it once said the request's origin was used instead).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import wranglerToml from "../wrangler.toml?raw";

describe("an empty PUBLIC_BASE_URL", () => {
  it("answers every request 503, naming the setting", async () => {
    for (const path of ["/v2/videos/", "/openapi.json", "/v2/content/complete"]) {
      const ctx = createExecutionContext();
      const response = await worker.fetch(
        new Request(`https://catalog.test${path}`),
        { ...env, PUBLIC_BASE_URL: "" },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(response.status, path).toBe(503);
      expect(await response.text(), path).toContain("PUBLIC_BASE_URL must be set");
    }
  });

  it("is described as such in wrangler.toml", () => {
    const lines = wranglerToml.split("\n");
    const at = lines.findIndex((line) => line.startsWith("PUBLIC_BASE_URL ="));
    const comment = lines
      .slice(0, at)
      .reverse()
      .filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("#")))
      .reverse()
      .join(" ");
    expect(lines[at]).toBe('PUBLIC_BASE_URL = ""');
    expect(comment).toMatch(/503/);
    expect(comment).not.toMatch(/request's origin/);
  });
});
