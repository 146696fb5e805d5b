// The OpenAPI document as client generators and linters read it (issue "Clients that follow
// the spec just work" §3): Redocly's recommended rules find no error, every operation has an
// operationId and an explicit security requirement (public ones `security: []`), and every
// answer with a body has a schema, so generated clients type every call's result.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, inject, it } from "vitest";
import { openapiDocument, PLACEHOLDER_ORIGIN } from "../../sdk/client/scripts/openapi-document.mjs";
import { createOrg } from "./harness/api";

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

/** Every `pattern` in the document, with where it is. */
function patternsIn(node: unknown, at = "#"): { at: string; pattern: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => patternsIn(item, `${at}/${i}`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "pattern" && typeof value === "string"
      ? [{ at, pattern: value }]
      : patternsIn(value, `${at}/${key}`),
  );
}

describe("the document's schemas, as a validating client compiles them (issue 34 §3)", () => {
  it("has patterns that compile as ECMAScript with the u flag, and carry no flags of their own", async () => {
    const patterns = patternsIn(JSON.parse(await documentText()));
    expect(patterns.length).toBeGreaterThan(10);
    const broken = patterns.flatMap(({ at, pattern }) => {
      try {
        new RegExp(pattern, "u");
      } catch (err) {
        return [`${at}: ${pattern}: ${(err as Error).message}`];
      }
      // A regex literal's flags written into the string ("…$/u") compile but match nothing.
      return /\/[a-z]+$/.test(pattern) ? [`${at}: ${pattern}: ends with regex flags`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("accepts a valid event batch, every free-form dimension set, and so does the worker", async () => {
    const doc = JSON.parse(await documentText());
    // JSON Schema 2020-12 (OpenAPI 3.1), patterns compiled with the u flag (Ajv's default).
    const ajv = new Ajv2020({ strict: false, unicodeRegExp: true });
    ajv.addSchema(doc, "openapi.json");
    const validate = ajv.getSchema("openapi.json#/components/schemas/EventBatch")!;
    const batch = {
      events: [
        {
          event: "played_1s",
          contentKey: "abc123XY",
          deviceType: "Desktop",
          playerId: "web-player 2.1",
          adPosition: "preroll",
          adCreative: "Spring sale – 30 s",
          adSystem: "Google Ad Manager",
          ecommerceKey: "bar-häagen",
          fingerprint: "f1e2d3c4b5a6",
          consent: false,
        },
      ],
    };
    expect(validate(batch), JSON.stringify(validate.errors)).toBe(true);
    // And an invalid value is still refused by the same pattern (a control character).
    const control = { events: [{ ...batch.events[0], playerId: "web\u0007player" }] };
    expect(validate(control)).toBe(false);

    const org = await createOrg(e2e);
    const res = await fetch(`${e2e.baseUrl}/v2/events`, {
      method: "POST",
      headers: { "X-Service-Sync-Code": org.syncCode, "Content-Type": "application/json" },
      body: JSON.stringify(batch),
    });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ accepted: 1, rejected: [] });
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
