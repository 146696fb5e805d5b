// zod's `core` namespace without its locales (see zod.mjs beside this file).
export * from "../node_modules/zod/v4/core/index.js";
/** Shadows core's `locales`. */
export const locales = {};
