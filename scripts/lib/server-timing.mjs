// Server-Timing header parsing for the benches and the tools (RFC: `name;dur=1.2;desc="..."`,
// entries separated by commas; fetch joins several Server-Timing headers with ", ").
//
// The worker sends `d1;dur=<ms>;desc="rows_read=<n> rows_written=<n> queries=<n>"` and
// `total;dur=<ms>`; parseD1Timing() turns that into numbers.

/** Splits on commas outside double quotes. */
function splitEntries(header) {
  const entries = [];
  let current = "";
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    if (ch === "," && !quoted) {
      entries.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  entries.push(current);
  return entries.map((e) => e.trim()).filter(Boolean);
}

/** `{ name: { dur?: number, desc?: string, ...params } }` for every metric in the header. */
export function parseServerTiming(header) {
  const metrics = {};
  if (!header) return metrics;
  for (const entry of splitEntries(header)) {
    const [name, ...params] = entry.split(/;(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((p) => p.trim());
    const metric = {};
    for (const param of params) {
      const eq = param.indexOf("=");
      const key = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase();
      let value = eq === -1 ? "" : param.slice(eq + 1).trim();
      if (value.startsWith('"') && value.endsWith('"'))
        value = value.slice(1, -1).replace(/\\(.)/g, "$1");
      metric[key] = key === "dur" ? Number(value) : value;
    }
    metrics[name] = metric;
  }
  return metrics;
}

/** `key=value key2=value2` (a desc) as an object of numbers where numeric. */
export function parseDesc(desc = "") {
  const out = {};
  for (const pair of desc.split(/\s+/).filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const value = pair.slice(eq + 1);
    out[pair.slice(0, eq)] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/**
 * The worker's D1 cost and total time from a Server-Timing header:
 * `{ d1Ms, rowsRead, rowsWritten, queries, totalMs }` (null fields when absent).
 */
export function parseD1Timing(header) {
  const metrics = parseServerTiming(header);
  const d1 = metrics.d1;
  const desc = parseDesc(d1?.desc);
  const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  return {
    d1Ms: num(d1?.dur),
    rowsRead: num(desc.rows_read),
    rowsWritten: num(desc.rows_written),
    queries: num(desc.queries),
    totalMs: num(metrics.total?.dur),
  };
}
