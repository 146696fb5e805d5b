// Command-line options shared by the benches.
import { resolve } from "node:path";
import { parseArgs } from "node:util";

export const COMMON_USAGE = `  --url URL         worker to measure (default http://127.0.0.1:8787)
  --runs N          measured requests per query (default 20), after --warmups (default 2)
  --only REGEX      run only the queries whose name matches
  --persist-to DIR  local D1 state to pick inputs from (wrangler's --persist-to)`;

/** Parses the common options plus `extra` (parseArgs option specs). Throws on bad input. */
export function parseBenchArgs(argv, extra = {}) {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string", default: "http://127.0.0.1:8787" },
      runs: { type: "string", default: "20" },
      warmups: { type: "string", default: "2" },
      only: { type: "string" },
      "persist-to": { type: "string" },
      help: { type: "boolean", short: "h" },
      ...extra,
    },
  });
  const count = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return n;
  };
  let only = null;
  if (values.only) only = new RegExp(values.only);
  const url = new URL(values.url).href;
  return {
    ...values,
    url,
    runs: count("runs", 1),
    warmups: count("warmups", 0),
    only,
    persistTo: values["persist-to"] ? resolve(values["persist-to"]) : undefined,
  };
}

/**
 * The options of a bench's command line, or the exit: usage and status 2 on bad input, the
 * usage alone for --help. `check` validates the bench's own options (throwing on bad ones).
 */
export function benchOptions(usage, extra = {}, check = () => {}) {
  let options;
  try {
    options = parseBenchArgs(process.argv.slice(2), extra);
    if (!options.help) check(options);
  } catch (err) {
    console.error(`${err.message}\n\n${usage}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(usage);
    process.exit(0);
  }
  return options;
}
