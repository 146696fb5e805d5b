// Where the service agrees to send a request of its own to a URL a publisher gave: the webhooks'
// rule (webhooks/url-policy.ts: https to public hosts; loopback only in local development), and
// every name resolving to public addresses only (webhooks/dns.ts). Webhook deliveries check it
// before each attempt; subtitle files before each request, redirects included.
import type { Config } from "../config";
import { resolvesPublic } from "./webhooks/dns";
import { checkWebhookUrl } from "./webhooks/url-policy";

/** Why the service will not fetch `url` itself, or null when it may. */
export async function outboundRefusal(
  url: URL,
  config: Pick<Config, "webhooksAllowLoopback">,
  nowMs: number,
): Promise<string | null> {
  const check = checkWebhookUrl(url.toString(), config.webhooksAllowLoopback);
  if (!check.ok) return check.reason;
  if (!check.resolve) return null;
  const resolution = await resolvesPublic(check.url.hostname, nowMs);
  return resolution.ok ? null : resolution.reason;
}
