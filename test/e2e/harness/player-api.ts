// The player's side of the API for the browser tests: player configurations
// (/v2/player-configurations), ecommerce items with what the player shows (/v2/ecommerce) and
// their placement on a video (E3 → E4 with itemPlacements).
import { getContent, json, type Org, type Service, writeHeaders } from "./api";

async function call(service: Service, org: Org, method: string, path: string, body: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await json(res);
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Creates a player configuration; resolves to its id (the player's video_player_id). */
export async function createPlayerConfig(
  service: Service,
  org: Org,
  c: {
    name: string;
    autoplay: "off" | "muted-in-view";
    docking: boolean;
    adTagUrl: string | null;
    midrolls?: number[];
    relatedFeedKey?: string | null;
  },
): Promise<string> {
  const answer = await call(service, org, "POST", "/v2/player-configurations", {
    name: c.name,
    autoplay: c.autoplay,
    docking: c.docking,
    ads: { enabled: c.adTagUrl !== null, tagUrl: c.adTagUrl, midrolls: c.midrolls ?? [] },
    relatedFeedKey: c.relatedFeedKey ?? null,
  });
  return (answer.data ?? answer).id;
}

export interface TestItem {
  ecommerceKey: string;
  name: string;
  priceText: string | null;
  start: number | null;
  end: number | null;
}

/** Creates the items (their link: `link`) and places them on the video, in this order. */
export async function setItems(
  service: Service,
  org: Org,
  contentKey: string,
  items: TestItem[],
  link: string,
): Promise<void> {
  for (const item of items)
    await call(service, org, "POST", "/v2/ecommerce", {
      ecommerceKey: item.ecommerceKey,
      ecommerceLink: link,
      ecommerceName: item.name,
      priceText: item.priceText,
    });
  const record = await getContent(service, org, contentKey);
  await call(service, org, "PUT", "/v2/content", {
    ...record,
    itemPlacements: items.map((i) => ({
      ecommerceKey: i.ecommerceKey,
      start: i.start,
      end: i.end,
    })),
  });
}
