// The API reference: Swagger UI served from the worker's own static assets (dist/public/docs,
// built from the version-pinned swagger-ui-dist package), reading /openapi.json. Nothing is
// loaded from a CDN, so it works offline and behind a firewall.
import { createRouter } from "../../http/router";

export const REFERENCE_TITLE = "Edge video catalog API reference";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${REFERENCE_TITLE}</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const router = createRouter();
router.get("/docs", (c) => {
  c.header(
    "Content-Security-Policy",
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  );
  c.header("Cache-Control", "public, max-age=300");
  return c.html(PAGE);
});

export default router;
