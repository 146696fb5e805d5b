// What the worker's bundle gets for `import ... from "zod"` (wrangler.toml [alias]): zod itself,
// without its 60-odd locales. @hono/zod-openapi passes the `z` namespace to zod-to-openapi, so
// the bundler cannot tell which exports are used and keeps them all, `locales` and
// `core.locales` included: ~38 KiB of the gzipped worker (docs/benchmarks.md, "Worker bundle").
// The service writes its own messages and zod keeps English as its default (it imports `en` on
// its own), so nothing reads them. Every other export is zod's own binding, the same instance.
// The path below is a file, not the package name: an alias applies to "zod/..." too.
import * as z from "./zod.mjs";
import * as core from "./zod-core.mjs";

export * from "../node_modules/zod/v4/classic/external.js";
export { core, z, z as default };
/** Shadows zod's `locales` (a module's own export wins over `export *`). */
export const locales = {};
