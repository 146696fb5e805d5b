// What only a real HTTP client can send (the workers pool's fetch refuses it): a GET or HEAD
// with a chunked body. The fuzzer found these answered 500; the body must simply be ignored.
import { request } from "node:http";
import { describe, expect, inject, it } from "vitest";

const e2e = inject("e2e");

function chunkedRequest(
  method: string,
  path: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, e2e.baseUrl),
      { method, headers: { "Transfer-Encoding": "chunked", "Content-Type": "text/plain" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("GET and HEAD with a chunked body", () => {
  it.each([
    ["GET", "/healthz", 200],
    ["GET", "/openapi.json", 200],
    ["GET", "/v2/videos?pageSize=1", 401],
    ["HEAD", "/healthz", 200],
  ])("%s %s answers %i, not 500", async (method, path, status) => {
    const res = await chunkedRequest(method, path, "garbage");
    expect(res.status, res.text).toBe(status);
  });
});
