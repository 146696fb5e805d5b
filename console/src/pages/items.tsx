// Items: the organization's ecommerce items (E12 ecommerce_info, and what the service's player
// shows over a video: name, link, image and price), created, edited and deleted. Placing them on
// a video is done on the video's page. Needs the ecommerce entitlement (the page says so).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, entitlements, ok } from "../api";
import { deleteConfirmed, errorText, Messages } from "../messages";

type Item = components["schemas"]["EcommerceItem"];

function ItemForm({ item, onSaved }: { item?: Item; onSaved: (i: Item) => void }) {
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    const formElement = e.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const body = {
      ecommerceKey: item?.ecommerceKey ?? text("ecommerceKey"),
      ecommerceName: text("ecommerceName"),
      ecommerceLink: text("ecommerceLink"),
      imageUrl: text("imageUrl") || null,
      priceText: text("priceText") || null,
    };
    setError("");
    try {
      const saved = ok(
        item
          ? await client.api.PUT("/v2/ecommerce", { body })
          : await client.api.POST("/v2/ecommerce", { body }),
      );
      onSaved(saved.data);
      if (!item) formElement.reset();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form
      class="card"
      onSubmit={submit}
      aria-label={item ? `Edit ${item.ecommerceName}` : "New item"}
    >
      {!item && (
        <label>
          Key (what players report as ecommerce_key)
          <input name="ecommerceKey" required maxLength={64} pattern="[A-Za-z0-9_.\-]{1,64}" />
        </label>
      )}
      <label>
        Name
        <input name="ecommerceName" required maxLength={500} value={item?.ecommerceName} />
      </label>
      <label>
        Link (opens in a new tab when the viewer clicks the item)
        <input
          name="ecommerceLink"
          type="url"
          required
          maxLength={2000}
          value={item?.ecommerceLink}
        />
      </label>
      <label>
        Image URL (https; empty: none)
        <input name="imageUrl" type="url" maxLength={2000} value={item?.imageUrl ?? ""} />
      </label>
      <label>
        Price (as shown, e.g. €19.90; empty: none)
        <input name="priceText" maxLength={100} value={item?.priceText ?? ""} />
      </label>
      <Messages error={error} />
      <button type="submit">{item ? "Save item" : "Create item"}</button>
    </form>
  );
}

export function Items() {
  const [items, setItems] = useState<Item[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  useEffect(() => {
    entitlements()
      .then((list) => {
        if (!list.includes("ecommerce"))
          throw new Error("Items need the ecommerce entitlement, which this organization lacks.");
        return client.api.GET("/v2/ecommerce").then(ok);
      })
      .then(
        (r) => setItems(r.data),
        (err: Error) => setError(err.message),
      );
  }, []);
  const saved = (i: Item) => {
    setItems((list) =>
      [...(list ?? []).filter((x) => x.ecommerceKey !== i.ecommerceKey), i].sort((a, b) =>
        a.ecommerceKey.localeCompare(b.ecommerceKey),
      ),
    );
    setOpen(i.ecommerceKey);
    setNotice(`Item "${i.ecommerceName}" saved.`);
  };
  const remove = (i: Item) =>
    deleteConfirmed(
      { setError, setNotice },
      {
        question: `Delete the item "${i.ecommerceName}"? Its statistics stay; videos stop showing it.`,
        subject: "Item",
        name: i.ecommerceName,
        request: async () =>
          ok(
            await client.api.DELETE("/v2/ecommerce", {
              params: { query: { ecommerceKey: i.ecommerceKey } },
            }),
          ),
        removed: () =>
          setItems((list) => (list ?? []).filter((x) => x.ecommerceKey !== i.ecommerceKey)),
      },
    );
  return (
    <section aria-labelledby="items-title">
      <h1 id="items-title">Items</h1>
      <Messages error={error} notice={notice} />
      {items !== null && (
        <>
          <h2>New item</h2>
          <ItemForm onSaved={saved} />
          <h2>Your items</h2>
          {items.length === 0 && <p>No items yet.</p>}
          <ul class="plain">
            {items.map((i) => (
              <li key={i.ecommerceKey} class="card" data-item={i.ecommerceKey}>
                <h3>
                  <button
                    type="button"
                    class="link"
                    aria-expanded={open === i.ecommerceKey}
                    onClick={() => setOpen(open === i.ecommerceKey ? null : i.ecommerceKey)}
                  >
                    {i.ecommerceName}
                  </button>{" "}
                  <span class="muted small">{i.ecommerceKey}</span>
                </h3>
                <p class="small">
                  {i.priceText ?? "no price"} · {i.imageUrl ? "with an image" : "no image"} ·{" "}
                  <a href={i.ecommerceLink} target="_blank" rel="noopener">
                    link
                  </a>
                </p>
                {open === i.ecommerceKey && (
                  <>
                    <ItemForm item={i} onSaved={saved} />
                    <button type="button" class="danger" onClick={() => void remove(i)}>
                      Delete item…
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
