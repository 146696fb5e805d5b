// The import rule of the layers (docs/architecture.md), checked in CI by `npm run lint:deps`:
//
//   routes, middleware, http, queues, durable  ->  domain  ->  db | storage | media  ->  shared
//
// schemas (the API's zod contract) read only shared; routes and the domain read them. env.ts
// and config.ts are leaves every layer may read. No module imports a higher layer or one beside
// it, type imports included (a type names what a module depends on as much as a value does);
// the one freedom is a type-only import that skips a layer downward (a handler names the Db type
// it receives). src/durable/ holds entry points (Durable Object classes) like src/queues/.
/** @type {import('dependency-cruiser').IConfiguration} */
const forbid = (name, comment, from, to, extra = {}) => ({
  name,
  comment,
  severity: "error",
  from: { path: from, ...extra.from },
  to: { path: to, ...extra.to },
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
      "env-and-config-are-leaves",
      "env.ts (the bindings, their shapes in shared/bindings.ts) and config.ts are read by every layer; they import only shared/ and each other.",
      "^src/(env|config)\\.ts$",
      "^src/(?!shared/|env\\.ts$|config\\.ts$)",
    ),
    forbid(
      "lower-layers-stay-low",
      "db/, storage/ and media/ never reach up into domain, HTTP, routes or the entry points.",
      "^src/(db|storage|media)/",
      "^src/(domain|http|middleware|routes|queues|durable|schemas|app|index)",
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
      "domain/ holds the rules: no HTTP, no middleware, no routes, no queue consumers, no Durable Object classes (it reaches them through domain/live/objects.ts).",
      "^src/domain/",
      "^src/(http|middleware|routes|queues|durable|app|index)",
    ),
    forbid(
      "routes-go-through-domain",
      "Routes, middleware, the HTTP helpers and the queue consumers reach data through domain/ (stored objects are streamed by http/serve-object); a type-only import may name a lower layer's type.",
      "^src/(routes|middleware|http|queues)/",
      "^src/(db|storage|media)/",
      {
        from: { pathNot: "^src/(middleware/request-context|http/serve-object)\\.ts$" },
        to: { dependencyTypesNot: ["type-only"] },
      },
    ),
    forbid(
      "durable-goes-through-domain",
      "A Durable Object reaches data through domain/, with two named exceptions for the live stream's per-segment work: the encoder's and viewers' playlists (media/packaging/hls/live-playlist.ts) and the keys of its stored files (storage/layout.ts).",
      "^src/durable/",
      "^src/(db|storage|media)/",
      {
        to: {
          pathNot: "^src/(media/packaging/hls/live-playlist|storage/layout)\\.ts$",
          dependencyTypesNot: ["type-only"],
        },
      },
    ),
    forbid(
      "durable-is-an-entry-point",
      "Durable Object classes are exported by index.ts only; the rest of the worker reaches them through their binding.",
      "^src/(?!index\\.ts$|durable/)",
      "^src/durable/",
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
      comment: "Import cycles make the layers meaningless (type imports included).",
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
