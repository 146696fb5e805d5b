// The import rule of the layers (docs/architecture.md), checked in CI by `npm run lint:deps`:
//
//   routes, middleware, http, queues  ->  domain  ->  db | storage | media  ->  shared
//
// schemas (the API's zod contract) sit beside routes and read only shared; config and env are
// read by every layer. Type-only imports are free: they vanish from the bundle and carry no
// behaviour across layers (a handler may name the Db type it receives).
/** @type {import('dependency-cruiser').IConfiguration} */
const forbid = (name, comment, from, to, extra = {}) => ({
  name,
  comment,
  severity: "error",
  from: { path: from, ...extra.from },
  to: { path: to, dependencyTypesNot: ["type-only"], ...extra.to },
});

module.exports = {
  forbidden: [
    forbid(
      "shared-is-a-leaf",
      "shared/ holds pure helpers every layer may use; it imports no other layer.",
      "^src/shared/",
      "^src/(?!shared/)",
    ),
    forbid(
      "lower-layers-stay-low",
      "db/, storage/ and media/ never reach up into domain, HTTP or routes.",
      "^src/(db|storage|media)/",
      "^src/(domain|http|middleware|routes|queues|schemas|app|index)",
    ),
    forbid(
      "lower-layers-apart",
      "db/, storage/ and media/ do not import each other.",
      "^src/db/",
      "^src/(storage|media)/",
    ),
    forbid(
      "storage-apart",
      "storage/ does not import db/ or media/.",
      "^src/storage/",
      "^src/(db|media)/",
    ),
    forbid(
      "media-apart",
      "media/ does not import db/ or storage/.",
      "^src/media/",
      "^src/(db|storage)/",
    ),
    forbid(
      "domain-knows-no-http",
      "domain/ holds the rules: no HTTP, no middleware, no routes, no queue consumers.",
      "^src/domain/",
      "^src/(http|middleware|routes|queues|app|index)",
    ),
    forbid(
      "routes-go-through-domain",
      "Routes, middleware, the HTTP helpers and the queue consumers reach data through domain/ (stored objects are streamed by http/serve-object).",
      "^src/(routes|middleware|http|queues)/",
      "^src/(db|storage|media)/",
      { from: { pathNot: "^src/(middleware/request-context|http/serve-object)\\.ts$" } },
    ),
    forbid(
      "schemas-are-a-contract",
      "schemas/ (zod) read only shared/.",
      "^src/schemas/",
      "^src/(?!shared/|schemas/)",
    ),
    forbid(
      "routes-are-apart",
      "A route group does not import another one.",
      "^src/routes/([^/]+)/",
      "^src/routes/(?!$1/)",
    ),
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make the layers meaningless.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.test\\.ts$" },
  },
};
