// The OpenAPI document as client generators and linters read it (issue "Clients that follow
// the spec just work" §3): Redocly's recommended rules find no error, every operation has an
// operationId and an explicit security requirement (public ones `security: []`), and every
// answer with a body has a schema, so generated clients type every call's result.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, inject, it } from "vitest";
import { openapiDocument, PLACEHOLDER_ORIGIN } from "../../sdk/client/scripts/openapi-document.mjs";

const e2e = inject("e2e");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

async function documentText(): Promise<string> {
  const res = await fetch(`${e2e.baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  return res.text();
}

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules without an error or a warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: await documentText(),
      config,
      absoluteRef: `${e2e.baseUrl}/openapi.json`,
    });
    const described = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`,
    );
    expect(described).toEqual([]);
  });

  it("names every operation, says who may call it, and types every body it answers", async () => {
    const doc = JSON.parse(await documentText()) as {
      paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
      servers: { url: string }[];
    };
    expect(doc.servers).toEqual([{ url: e2e.baseUrl }]);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.flatMap((method) =>
        item[method] ? [{ id: `${method.toUpperCase()} ${path}`, op: item[method]! }] : [],
      ),
    );
    expect(operations.length).toBeGreaterThan(40);
    const ids = operations.map(({ op }) => op.operationId);
    expect(operations.filter(({ op }) => !op.operationId).map(({ id }) => id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ op }) => !Array.isArray(op.security)).map(({ id }) => id)).toEqual(
      [],
    );
    // Player traffic and public files declare that they need nothing.
    for (const id of [
      "GET /search_video_feed",
      "GET /json-feed",
      "GET /media/{contentKey}/{file}",
      "POST /v2/events",
    ]) {
      const found = operations.find((o) => o.id === id);
      expect(found, id).toBeDefined();
      if (id === "POST /v2/events")
        expect(found!.op.security).toEqual([{ syncCodeAuth: [] }, { syncCodeQuery: [] }]);
      else expect(found!.op.security).toEqual([]);
    }
    const untyped = operations.flatMap(({ id, op }) =>
      Object.entries(op.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).flatMap(([type, media]) =>
          media.schema && Object.keys(media.schema).length ? [] : [`${id} ${status} ${type}`],
        ),
      ),
    );
    expect(untyped).toEqual([]);
  });
});

describe("the document the client is generated from", () => {
  it("is the one the worker serves (built from the app without a server, only the origin differs)", async () => {
    const served = JSON.parse(await documentText());
    const built = (await openapiDocument()) as { servers: { url: string }[] };
    expect(built.servers).toEqual([{ url: PLACEHOLDER_ORIGIN }]);
    expect({ ...built, servers: served.servers }).toEqual(served);
  });
});
