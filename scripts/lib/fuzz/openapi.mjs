// The OpenAPI document: its operations, and which error shape each path answers with.

export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

export function resolver(doc) {
  const resolve = (schema, seen = 0) => {
    if (!schema || typeof schema !== "object") return schema ?? {};
    if (schema.$ref && seen < 20) {
      const target = schema.$ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      return resolve(
        { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")) },
        seen + 1,
      );
    }
    return schema;
  };
  return resolve;
}

export function authKind(security) {
  const schemes = new Set((security ?? []).flatMap((req) => Object.keys(req)));
  if (!schemes.size) return "public";
  if (schemes.has("adminAuth")) return "admin";
  if (schemes.has("apiKeyAuth") || schemes.has("apiSecretAuth") || schemes.has("bearerAuth"))
    return "write";
  if (schemes.has("organizationKey")) return "orgkey";
  if (schemes.has("syncCodeQuery")) return "events";
  return "sync";
}

export function operationsOf(doc) {
  const resolve = resolver(doc);
  const operations = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => {
        const param = resolve(p);
        return { ...param, schema: resolve(param.schema) };
      });
      const content = op.requestBody ? (resolve(op.requestBody).content ?? {}) : {};
      const bodyTypes = Object.keys(content);
      const bodySchema = bodyTypes.length ? resolve(content[bodyTypes[0]].schema) : null;
      const security = op.security ?? doc.security ?? [];
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params,
        bodySchema,
        bodyTypes,
        bodyRequired: Boolean(op.requestBody && resolve(op.requestBody).required),
        auth: authKind(security),
        security,
        resolve,
      });
    }
  }
  return operations;
}

/** Content endpoints answer {message}; every other {status: "KO", error} (src/http/errors.ts). */
export { errorStyleOf } from "../rules.mjs";
