// Starts Swagger UI on the service's own OpenAPI document. A file of its own (no inline script),
// so the page works under a Content-Security-Policy of 'self'.
window.addEventListener("load", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#reference",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
