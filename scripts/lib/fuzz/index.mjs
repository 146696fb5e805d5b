// A request fuzzer for the whole OpenAPI document of the worker (`npm run fuzz`, and the e2e test
// test/e2e/fuzz.test.ts). Loopback servers only; plain Node 20. The worker's own rules (error
// shapes, counter names, entitlements, plan limits) come from its sources (../rules.mjs).
//
// For every operation of /openapi.json it generates requests that look valid (values from the
// schemas, plus what the service's own answers taught it: content keys, signed upload URLs, feed
// ids), then mutates them: odd strings (empty, 100 KB, emoji, RTL override, combining marks,
// control characters, NUL, broken percent-encoding, ../, SQL and FTS5 syntax), numbers at and past
// their limits, wrong JSON types, deep nesting, huge arrays, duplicated keys, wrong Content-Types,
// truncated, invalid and oversized bodies, repeated query parameters, odd headers (Range, If-Range,
// If-None-Match, CF-IPCountry, ...) and wrong, missing or garbled credentials. The E6 filter syntax
// (tags, categories, events, searchString, customFields) gets a generator of its own.
//
// What it reports: counts by status class and by operation; every 5xx, timeout and connection
// error; every error answer (4xx/5xx) whose body is not the documented shape (content endpoints
// `{message}`, every other `{status: "KO", error}`); every answer without
// `X-Content-Type-Options: nosniff` (a warning). `findings` counts what fails a run: 5xx,
// timeouts, connection errors, shape violations. Answers that the local runtime gave instead of
// the worker (e.g. wrangler's 431 for a request head over ~64 KB: text/plain, none of the
// worker's headers) are listed apart. 429s are counted apart (plan limit vs failed-authentication throttle): the
// fuzzer keeps every organization under its plan's per-minute limit and deliberate credential
// failures under the per-address throttle, so 429 is not what it measures.
//
// Safety: it only ever connects to the loopback host and port of baseUrl ("localhost" must
// resolve to a loopback address; signed URLs are used for their path and query only). It never
// deletes, patches or rotates the credentials of the organizations it uses or was given (demo and
// partner included), and never deletes or changes the content and feeds those already had:
// destructive requests only target what the fuzzer created itself, or keys that do not exist.
//
// Reproducibility: request i is generated from a PRNG seeded with `${seed}:${i}`; what it picks
// from the resources learnt from earlier answers (created content keys, upload URLs) depends on
// timing with several requests in flight. Every finding carries a curl line.
//
// One module a section: config.mjs (credentials, defaults), odd-values.mjs and values.mjs (what
// generators draw from), media.mjs (fake MP4/JPEG), http.mjs (loopback-only node:http),
// openapi.mjs (the operations of the document), schema-values.mjs (values from schemas),
// requests.mjs, mutations.mjs and build-request.mjs (request i), safety.mjs (the guard),
// checks.mjs (serializing, curl lines, the error-shape oracle), setup.mjs, run.mjs (the run) and
// summary.mjs (the text the CLI prints).

export { curlLine, shapeProblem } from "./checks.mjs";
export { DEFAULTS, DEMO_CREDENTIALS } from "./config.mjs";
export { errorStyleOf, operationsOf } from "./openapi.mjs";
export { fuzz } from "./run.mjs";
export { formatSummary } from "./summary.mjs";
