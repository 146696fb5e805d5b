// SQL text helpers for the bulk loader: literals and multi-row INSERT statements.

/** A SQL expression inserted verbatim by lit() (a subquery, say). */
export const raw = (sql) => ({ raw: sql });

/** SQL literal: NULL, integers and reals as digits, booleans as 1/0, strings single-quoted. */
export function lit(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "object" && typeof value.raw === "string") return value.raw;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  return `'${String(value).replace(/'/g, "''")}'`;
}

/**
 * Multi-row `INSERT INTO table (columns) VALUES (...), (...);` statements for `rows` (arrays of
 * JS values in column order). A statement ends before it passes maxBytes (D1 refuses statements
 * over 100 KB) or maxRows rows.
 */
export function insertStatements(table, columns, rows, { maxBytes = 90_000, maxRows = 500 } = {}) {
  const head = `INSERT INTO ${table} (${columns.join(", ")}) VALUES\n`;
  const statements = [];
  let tuples = [];
  let bytes = head.length;
  for (const row of rows) {
    const tuple = `(${row.map(lit).join(", ")})`;
    if (tuples.length > 0 && (bytes + tuple.length + 2 > maxBytes || tuples.length >= maxRows)) {
      statements.push(head + tuples.join(",\n") + ";");
      tuples = [];
      bytes = head.length;
    }
    tuples.push(tuple);
    bytes += tuple.length + 2;
  }
  if (tuples.length > 0) statements.push(head + tuples.join(",\n") + ";");
  return statements;
}
