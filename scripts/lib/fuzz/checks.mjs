// Serializing a request, its curl line, and the checks of an answer: the documented error shape,
// answers of the local runtime rather than the worker, status classes.

import { errorBody, errorStyleOf } from "../rules.mjs";
import { EXCERPT } from "./config.mjs";

export function serialize(run, req) {
  let path = req.op.path;
  for (const p of req.pathParams) path = path.replace(`{${p.name}}`, p.value);
  if (req.pathSuffix) path += req.pathSuffix;
  let query = req.query.map(([k, v]) => `${k}=${v}`).join("&");
  if (req.rawQueryPrefix) query = req.rawQueryPrefix + query;
  if (req.rawQuerySuffix) query += req.rawQuerySuffix;
  const full = query ? `${path}?${query}` : path;
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  if (req.body && (req.body.length || req.forceContentLength)) {
    if (req.contentType !== null && req.contentType !== undefined)
      headers["Content-Type"] = req.contentType;
    // Node frames a body as chunked by itself only for POST/PUT/PATCH; for GET, DELETE, ... it
    // would send the bytes unframed (the server then reads them as the next request): say it.
    if (!req.chunked) headers["Content-Length"] = String(req.body.length);
    else headers["Transfer-Encoding"] = "chunked";
  } else if (req.forceContentLength) {
    headers["Content-Length"] = "0";
    if (req.contentType) headers["Content-Type"] = req.contentType;
  }
  const sent = {
    method: req.method,
    path: full,
    headers,
    body: req.body,
    chunked: Boolean(req.chunked && req.body?.length),
  };
  // A body the server may leave unread (on GET/HEAD/OPTIONS or an unknown method, or chunked)
  // would be parsed as the next request of a kept-alive connection (wrangler dev does): such
  // requests go on a connection of their own, closed after the answer.
  if (
    sent.body?.length &&
    (sent.chunked || !["POST", "PUT", "PATCH", "DELETE"].includes(sent.method))
  ) {
    sent.headers.Connection = "close";
    sent.isolated = true;
  }
  return sent;
}

export function excerptText(buf, max = EXCERPT) {
  if (!buf || !buf.length) return "";
  const text = buf.toString("utf8", 0, Math.min(buf.length, max * 4));
  const printable = text.replace(
    /[\u0000-\u0008\u000a-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  const binary = (text.match(/\uFFFD/g) ?? []).length > 8;
  if (binary) return `<${buf.length} bytes, binary: ${buf.subarray(0, 32).toString("hex")}...>`;
  return printable.length > max ? `${printable.slice(0, max)}... (${buf.length} bytes)` : printable;
}

/** bash ANSI-C quoting of a latin1 (byte) string. */
export function shq(s) {
  if (/^[\x20-\x7e]*$/.test(s) && !s.includes("'")) return `'${s}'`;
  return (
    "$'" +
    [...s]
      .map((c) => {
        const code = c.charCodeAt(0);
        if (c === "'" || c === "\\") return "\\" + c;
        if (code < 0x20 || code >= 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
        return c;
      })
      .join("") +
    "'"
  );
}

/**
 * shq, with long runs of a repeated unit (100 KB of "a", 500 x "%7C") written as a node
 * expression, so the curl line stays short: 'pre'"$(node -e 'process.stdout.write("a".repeat(100000))')"'post'.
 */
export function shqCompact(s) {
  if (s.length < 400) return shq(s);
  const m = /([\s\S]{1,8}?)\1{49,}/.exec(s);
  if (!m) return shq(s);
  const unit = m[1];
  const count = m[0].length / unit.length;
  const before = s.slice(0, m.index);
  const after = s.slice(m.index + m[0].length);
  const unitJs = JSON.stringify(unit).replace(/'/g, "\\x27");
  const expr = `"$(node -e 'process.stdout.write(Buffer.from(${unitJs}.repeat(${count}),"latin1"))')"`;
  return `${before ? shq(before) : ""}${expr}${after ? shqCompact(after) : ""}`;
}

export function curlLine(baseUrl, sent, bodyFile) {
  const parts = ["curl", "-sS", "-i", "-g", "--path-as-is"];
  if (sent.method === "HEAD") parts.push("-I");
  else if (sent.method !== "GET" || sent.body?.length) parts.push("-X", shq(sent.method));
  for (const [name, value] of Object.entries(sent.headers)) {
    if (name === "Content-Length") continue;
    for (const v of Array.isArray(value) ? value : [value])
      parts.push("-H", shqCompact(`${name}: ${v}`));
  }
  if (sent.body?.length) {
    if (!sent.headers["Content-Type"]) parts.push("-H", shq("Content-Type:"));
    if (sent.body.length <= 2048) parts.push("--data-binary", shq(sent.body.toString("latin1")));
    else parts.push("--data-binary", `@${bodyFile ?? "body.bin"}`);
  } else if (sent.headers["Content-Length"] === "0") {
    parts.push("--data-binary", "''");
  }
  const base = baseUrl.replace(/\/$/, "");
  // curl drops a "#..." from a URL; --request-target sends the path and query exactly
  if (sent.path.includes("#")) parts.push("--request-target", shqCompact(sent.path), shq(base));
  else parts.push(shqCompact(base + sent.path));
  return parts.join(" ");
}

export function parseJson(buf) {
  try {
    return { ok: true, value: JSON.parse(buf.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/** A shape as the docs write it: {message}, {status:"KO", error}. */
const describeShape = (shape) =>
  `{${Object.entries(shape)
    .map(([k, v]) => (v === "" ? k : `${k}:${JSON.stringify(v)}`))
    .join(", ")}}`;

/** Whether v has every field of the shape: its constants equal, its message a string. */
const hasShape = (v, shape) =>
  Object.entries(shape).every(([k, c]) => (c === "" ? typeof v[k] === "string" : v[k] === c));

/** Why this error answer breaks the documented shape (src/http/errors.ts), or null. */
export function shapeProblem(pathname, status, headers, body) {
  const style = errorStyleOf(pathname);
  const shape = errorBody(style, "");
  const expected = describeShape(shape);
  const type = String(headers["content-type"] ?? "");
  const parsed = parseJson(body ?? Buffer.alloc(0));
  if (!parsed.ok)
    return `HTTP ${status} body is not JSON (Content-Type ${type || "none"}); expected ${expected}`;
  const v = parsed.value;
  if (!v || typeof v !== "object" || Array.isArray(v))
    return `HTTP ${status} body is not a JSON object; expected ${expected}`;
  if (style === "message") {
    if (!hasShape(v, shape))
      return `HTTP ${status} body has no string "message" (${pathname} is a content endpoint)`;
    // The other shape's constant (status: "KO") marks an answer in the wrong style.
    const other = Object.entries(errorBody("ko", "")).filter(([, c]) => c !== "");
    if (other.some(([k, c]) => v[k] === c))
      return `HTTP ${status} content endpoint answered the ${describeShape(Object.fromEntries(other))} shape`;
  } else if (!hasShape(v, shape)) {
    return `HTTP ${status} body is not ${expected}`;
  }
  if (!/json/i.test(type))
    return `HTTP ${status} JSON error body with Content-Type ${type || "none"}`;
  return null;
}

/**
 * An answer the local runtime (wrangler/workerd) gave before the worker ran: none of the headers
 * the worker's middleware adds, and one of workerd's own plain-text answers ("ERROR: header too
 * large." 431 for a request head over ~64 KB, "ERROR: Unrecognized request method." 501, 415
 * "Unsupported Media Type" for Accept-Encoding: identity;q=0, 503 "Your worker restarted
 * mid-request" while wrangler dev reloads after a source change). Anything else is the worker's.
 */
export function fromRuntime(method, status, headers, body) {
  if (headers["server-timing"] || headers["referrer-policy"] || headers["x-content-type-options"])
    return false;
  const text = body?.length ? body.toString("utf8", 0, 200) : "";
  if (method.toUpperCase() === "HEAD" && !text)
    return (
      [414, 415, 431, 501].includes(status) &&
      /^text\/plain/.test(String(headers["content-type"] ?? ""))
    );
  return (
    /^ERROR: /.test(text) ||
    (status === 415 && text === "Unsupported Media Type") ||
    // wrangler dev reloading the worker after a source change
    (status === 503 && /^Your worker restarted mid-request/.test(text)) ||
    // miniflare's entry worker replaying, after such a restart, a request it held whose body
    // was already read
    (status === 500 && /^TypeError: Cannot reconstruct a Request with a used body/.test(text))
  );
}

export function statusClass(status) {
  if (status === 429) return "429";
  return `${Math.floor(status / 100)}xx`;
}
