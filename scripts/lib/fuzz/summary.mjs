// Summary text (the CLI prints it; tests print it on failure).
export function formatSummary(result, { maxListed = 50 } = {}) {
  const lines = [];
  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  lines.push(
    `fuzz ${result.baseUrl}: seed ${result.seed}, ${result.requests} requests in ${result.elapsedSeconds} s (+${result.setupRequests} setup requests)` +
      (result.waitedForRateLimitSeconds
        ? `, ${result.waitedForRateLimitSeconds} s waiting for the rate-limit minute`
        : ""),
  );
  lines.push(
    `organizations: ${result.organizations.map((o) => `${o.organizationKey}${o.fresh ? " (created)" : ""}`).join(", ") || "none"}`,
  );
  for (const l of result.setupLog) lines.push(`setup: ${l}`);
  lines.push("");
  const classes = [
    "2xx",
    "3xx",
    "4xx",
    "429",
    "5xx",
    "timeout",
    "connection error",
    "not sent",
    ...(result.byClass["runtime reset"] ? ["runtime reset"] : []),
  ];
  lines.push(classes.map((c) => `${c}: ${result.byClass[c] ?? 0}`).join("   "));
  lines.push(
    `statuses: ${Object.entries(result.byStatus)
      .map(([s, n]) => `${s}×${n}`)
      .join(" ")}`,
  );
  if (result.retriedAfterTimeout)
    lines.push(
      `sent again after no answer (a request wrangler dev's proxy lost over a worker restart): ${result.retriedAfterTimeout}`,
    );
  if (result.retriedAfterReset)
    lines.push(
      `sent again on a new connection after a keep-alive reset: ${result.retriedAfterReset}`,
    );
  if (result.absorbedRestarts)
    lines.push(
      `worker restarts by wrangler dev after chunked requests, absorbed by an uncounted probe: ${result.absorbedRestarts}`,
    );
  lines.push(
    `429: ${result.rateLimited.total} (plan limit ${result.rateLimited.plan}, failed-authentication throttle ${result.rateLimited.authFailures}, other ${result.rateLimited.other})`,
  );
  lines.push("");
  const cols = ["2xx", "3xx", "4xx", "429", "5xx", "timeout", "connection error"];
  lines.push(
    `${pad("operation", 58)}${lpad("total", 7)}${cols.map((c) => lpad(c === "connection error" ? "conn" : c, 8)).join("")}`,
  );
  for (const [op, counts] of Object.entries(result.byOperation).sort(
    (a, b) => b[1].total - a[1].total,
  )) {
    lines.push(
      `${pad(op.slice(0, 57), 58)}${lpad(counts.total, 7)}${cols.map((c) => lpad(counts[c] ?? "", 8)).join("")}`,
    );
  }
  const list = (title, items, fmt) => {
    lines.push("");
    lines.push(`${title}: ${items.length}`);
    for (const e of items.slice(0, maxListed)) lines.push(...fmt(e));
    if (items.length > maxListed)
      lines.push(`  ... ${items.length - maxListed} more (all of them with --out)`);
  };
  const cap = (text, n = 1500) =>
    text.length > n ? `${text.slice(0, n)}... (${text.length} chars; whole in --out)` : text;
  const common = (e) => [
    `  #${e.index} ${e.method} ${e.path}`,
    `     mutations: ${e.mutations.join("; ") || "none (a valid request)"}`,
    ...(e.requestBody
      ? [`     body (${e.requestBytes} bytes): ${e.requestBody.slice(0, 200)}`]
      : []),
  ];
  if (result.serverErrors.length > 1) {
    const groups = new Map();
    for (const e of result.serverErrors) {
      const key = `${e.status} ${e.response.replace(/\d+/g, "N").slice(0, 100)}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    lines.push("");
    lines.push("5xx by answer:");
    for (const [key, n] of [...groups].sort((a, b) => b[1] - a[1]))
      lines.push(`  ${String(n).padStart(5)}  ${key}`);
  }
  list("5xx", result.serverErrors, (e) => [
    ...common(e),
    `     -> ${e.status} ${e.response}`,
    ...(e.note ? [`     note: ${e.note}`] : []),
    `     repro: ${cap(e.curl)}`,
  ]);
  list("timeouts", result.timeouts, (e) => [
    ...common(e),
    `     -> ${e.error}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("connection errors", result.connectionErrors, (e) => [
    ...common(e),
    `     -> ${e.error}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("error-shape violations", result.shapeViolations, (e) => [
    ...common(e),
    `     -> ${e.problem}: ${e.response}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  list("answers without X-Content-Type-Options: nosniff", result.missingNosniff, (e) => [
    ...common(e),
    `     -> ${e.status}`,
    `     repro: ${cap(e.curl)}`,
  ]);
  if (result.runtimeAnswers.length) {
    const byStatus = {};
    for (const e of result.runtimeAnswers)
      byStatus[e.status ?? "reset"] = (byStatus[e.status ?? "reset"] ?? 0) + 1;
    lines.push("");
    lines.push(
      `answered by the local runtime, not the worker (not counted as findings): ${Object.entries(
        byStatus,
      )
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    );
    const e = result.runtimeAnswers[0];
    lines.push(
      `  e.g. #${e.index} ${e.method} ${e.path.slice(0, 120)} -> ${e.status} ${e.response.slice(0, 80)}`,
    );
  }
  if (result.clientRefusals.length) {
    lines.push("");
    lines.push(
      `not sent (Node refused the request): ${result.clientRefusals.length}, e.g. ${result.clientRefusals[0].error}`,
    );
  }
  lines.push("");
  lines.push(
    (result.findings
      ? `FINDINGS: ${result.findings} (5xx ${result.serverErrors.length}, timeouts ${result.timeouts.length}, connection errors ${result.connectionErrors.length}, shape violations ${result.shapeViolations.length})`
      : "no findings (5xx, timeouts, connection errors, shape violations)") +
      (result.missingNosniff.length
        ? `; warnings: ${result.missingNosniff.length} answers without X-Content-Type-Options: nosniff`
        : ""),
  );
  return lines.join("\n");
}
