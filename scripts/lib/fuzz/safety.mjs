// Safety guard: the organizations, content and feeds the fuzzer did not create are never deleted,
// patched or rotated, whatever the mutations did to the request; nor are their credentials,
// sign-in options, tokens or members changed with their own credentials.

export function looseDecode(s) {
  let out = String(s);
  for (let i = 0; i < 3; i++)
    out = out.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  return out.toLowerCase();
}

/**
 * Writes that change how an organization signs in or who may act for it (its API secret, sign-in
 * options, tokens, members, passkeys, sessions, signing keys, webhooks): sent only with the
 * credentials of an organization the fuzzer created, never with demo's or one it was given.
 */
const ORGANIZATION_ACCESS =
  /^\/v2\/(organization\/credentials|organization\/sign-in|tokens|members|passkeys|sessions|playback-keys|webhooks)(\/|$)/;

export function guard(run, req, path, pathname, org) {
  const method = req.method.toUpperCase();
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return true;
  if (org && !org.fresh && ORGANIZATION_ACCESS.test(looseDecode(pathname))) return false;
  // republishing files changes no data; events name content keys and change nothing of them
  if ((pathname === "/admin/feeds/rebuild" || pathname === "/v2/events") && method === "POST")
    return true;
  const { state } = run;
  // Whatever the route (a mutated path may still reach one): no destructive request names a
  // protected organization as a path segment, nor a protected content key or feed id anywhere.
  const text =
    looseDecode(path) +
    " " +
    (req.body && req.body.length < 4 * 1024 * 1024 ? looseDecode(req.body.toString("latin1")) : "");
  const segments = looseDecode(pathname)
    .split(/[/\\]/)
    .map((s) => s.replace(/[^a-z0-9_-]/g, ""));
  for (const key of state.protectedOrgKeys) if (segments.includes(key.toLowerCase())) return false;
  for (const key of state.protectedContentKeys) if (text.includes(key.toLowerCase())) return false;
  for (const id of state.protectedFeedIds)
    if (segments.includes(id.toLowerCase()) || text.includes(id.toLowerCase())) return false;
  return true;
}
