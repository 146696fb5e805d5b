// A site allowed to embed an organization's player (playback rights): a host name, or `*.` and a
// host name for its subdomains (not the host itself), as CSP frame-ancestors reads it.
export const ALLOWED_SITE_PATTERN =
  /^(\*\.)?(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
