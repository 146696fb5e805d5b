// The publisher console: its session endpoints, and its page at /console/ (a single page app
// built into dist/public/console by scripts/build-assets.mjs). The page is served here rather
// than as a static file so that it carries its Content-Security-Policy: scripts, styles,
// connections and media of this origin only, no inline script, no framing.
import type { Context } from "hono";
import { createRouter } from "../../http/router";
import * as handlers from "./console.handlers";
import * as routes from "./console.routes";

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  // The preview plays in the embeddable player (the same HLS stream as every player).
  "frame-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Publisher console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/console.js"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>
`;

const router = createRouter()
  .openapi(routes.signIn, handlers.signIn)
  .openapi(routes.current, handlers.current)
  .openapi(routes.status, handlers.status)
  .openapi(routes.signOut, handlers.signOut)
  .openapi(routes.signInMethods, handlers.signInMethods)
  .openapi(routes.passkeyOptions, handlers.passkeyOptions)
  .openapi(routes.passkeySignIn, handlers.passkeySignIn)
  .openapi(routes.accessSignIn, handlers.accessSignIn)
  .openapi(routes.invitation, handlers.invitation)
  .openapi(routes.acceptInvitation, handlers.acceptInvitation);

const page = (c: Context) => {
  c.header("Content-Security-Policy", CONSOLE_CSP);
  c.header("Cache-Control", "no-cache");
  c.header("X-Frame-Options", "DENY");
  return c.html(PAGE);
};
// Both answer the page (its URLs are absolute); a redirect would loop in Hono's matching.
router.get("/console/", page);
router.get("/console", page);

export default router;
