// A D1Database wrapper that adds up what every query cost (meta.rows_read, rows_written,
// duration). The request middleware reports the totals in the Server-Timing header, which is
// how we measure the cost of each endpoint (see bench/).

export class D1Meter {
  rowsRead = 0;
  rowsWritten = 0;
  durationMs = 0;
  queries = 0;
  /** Where D1 answered from (meta.served_by_region, when D1 reports it: replicas in production). */
  regions = new Set<string>();

  record(meta: Partial<D1Meta> | undefined): void {
    this.queries += 1;
    if (!meta) return;
    if (meta.served_by_region) this.regions.add(meta.served_by_region);
    this.rowsRead += meta.rows_read ?? 0;
    this.rowsWritten += meta.rows_written ?? 0;
    this.durationMs += meta.duration ?? 0;
  }

  /** The Server-Timing description of the d1 metric (bench/ and the tests read it). */
  description(): string {
    return `rows_read=${this.rowsRead} rows_written=${this.rowsWritten} queries=${this.queries}`;
  }
}

const INNER = Symbol("inner statement");

type Wrapped = D1PreparedStatement & { [INNER]: D1PreparedStatement };

function wrapStatement(inner: D1PreparedStatement, meter: D1Meter): Wrapped {
  const wrapped = {
    [INNER]: inner,
    bind: (...values: unknown[]) => wrapStatement(inner.bind(...values), meter),
    async first(column?: string) {
      const result = await inner.all<Record<string, unknown>>();
      meter.record(result.meta);
      const row = result.results[0];
      if (row === undefined) return null;
      return column === undefined ? row : (row[column] ?? null);
    },
    async all() {
      const result = await inner.all();
      meter.record(result.meta);
      return result;
    },
    async run() {
      const result = await inner.run();
      meter.record(result.meta);
      return result;
    },
    // D1's raw() drops meta, so raw rows are derived from all(). Like Drizzle's own batch
    // path, this keys rows by column name: joined selects must not repeat a column name.
    async raw(options?: { columnNames?: boolean }) {
      const result = await inner.all<Record<string, unknown>>();
      meter.record(result.meta);
      const rows = result.results.map((row) => Object.values(row));
      if (options?.columnNames) return [Object.keys(result.results[0] ?? {}), ...rows];
      return rows;
    },
  };
  return wrapped as unknown as Wrapped;
}

/** The meter of each metered database, so a second database can be metered on the same one. */
const meters = new WeakMap<D1Database, D1Meter>();

/** The meter a database made by meterD1 reports to; undefined for an unmetered one. */
export function meterOf(db: D1Database): D1Meter | undefined {
  return meters.get(db);
}

/** The metered database over a D1 binding or a session of it (./sessions.ts). */
export function meterD1(db: D1Database | D1DatabaseSession, meter: D1Meter): D1Database {
  const metered = {
    prepare: (query: string) => wrapStatement(db.prepare(query), meter),
    async batch<T>(statements: D1PreparedStatement[]) {
      const inner = statements.map((s) => (s as Partial<Wrapped>)[INNER] ?? s);
      const results = await db.batch<T>(inner);
      for (const r of results) meter.record(r.meta);
      return results;
    },
    async exec(query: string) {
      if (!("exec" in db)) throw new Error("exec runs on the database, not on a session");
      const result = await db.exec(query);
      meter.queries += result.count;
      meter.durationMs += result.duration;
      return result;
    },
  } as unknown as D1Database;
  meters.set(metered, meter);
  return metered;
}
