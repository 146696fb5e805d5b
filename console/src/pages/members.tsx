// Members (owners and admins): the organization's people with their roles, invitations (the
// one-time link shown, and emailed where the service can send mail), role changes, suspension,
// removal, recovery links; the organization's sign-in options (owners). docs/console.md.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { can, client, formatDate, ok, session } from "../api";
import { attempt, deleteConfirmed, errorText, Messages } from "../messages";

type Member = components["schemas"]["Member"];
type Invitation = components["schemas"]["Invitation"];
type Role = Member["role"];
const ROLES: Role[] = ["owner", "admin", "editor", "analyst"];

export function Members() {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [link, setLink] = useState<{ email: string; link: string; emailed: boolean } | null>(null);
  const [keySignIn, setKeySignIn] = useState<boolean | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const writer = can("members:write");
  // Only an owner (or the organization's own credentials) hands out the owner role.
  const roles = session?.role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");

  const reload = async () => {
    try {
      const [m, i] = await Promise.all([
        client.api.GET("/v2/members").then(ok),
        client.api.GET("/v2/members/invitations").then(ok),
      ]);
      setMembers(m.members);
      setInvitations(i.invitations);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void reload();
    if (can("owner:settings"))
      client.api.GET("/v2/organization/sign-in").then(
        (r) => setKeySignIn(ok(r).keySignIn),
        (err: Error) => setError(err.message),
      );
  }, []);

  const act = (work: () => Promise<unknown>, done: string) =>
    attempt({ setError, setNotice }, work, done, reload);

  const invite = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get("email") ?? "").trim();
    const role = String(data.get("role")) as Role;
    return act(async () => {
      const made = ok(await client.api.POST("/v2/members/invitations", { body: { email, role } }));
      setLink({ email, link: made.link, emailed: made.emailed });
      form.reset();
    }, `Invitation made for ${email}.`);
  };

  const recover = (m: Member) =>
    act(async () => {
      const made = ok(
        await client.api.POST("/v2/members/{id}/recovery", { params: { path: { id: m.id } } }),
      );
      setLink({ email: m.email, link: made.link, emailed: made.emailed });
    }, `Recovery link made for ${m.email}.`);

  const change = (m: Member, body: { role?: Role; status?: Member["status"] }) =>
    act(
      async () =>
        ok(await client.api.PATCH("/v2/members/{id}", { params: { path: { id: m.id } }, body })),
      `${m.name} updated.`,
    );

  const switchKeySignIn = (on: boolean) =>
    act(
      async () => {
        const answer = ok(
          await client.api.PUT("/v2/organization/sign-in", { body: { keySignIn: on } }),
        );
        setKeySignIn(answer.keySignIn);
      },
      on
        ? "Sign-in with the API key and secret is on."
        : "Sign-in with the API key and secret is off.",
    );

  return (
    <>
      <h1>Members</h1>
      <Messages error={error} notice={notice} />
      {link && (
        <div class="notice secret" data-testid="invitation">
          <p>
            One-time link for {link.email} (shown once{link.emailed ? "; also emailed" : ""}):{" "}
            <code data-testid="invitation-link">{link.link}</code>
          </p>
          <button type="button" class="secondary" onClick={() => setLink(null)}>
            Done
          </button>
        </div>
      )}
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">People</h2>
        {!members ? (
          <p>Loading…</p>
        ) : members.length === 0 ? (
          <p>No members yet: invite the first ones below.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                {writer && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.id} data-member={m.email}>
                  <td>{m.name}</td>
                  <td>{m.email}</td>
                  <td>
                    {writer && roles.includes(m.role) ? (
                      <select
                        aria-label={`Role of ${m.name}`}
                        value={m.role}
                        onChange={(e) =>
                          void change(m, {
                            role: (e.currentTarget as HTMLSelectElement).value as Role,
                          })
                        }
                      >
                        {roles.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{m.status}</td>
                  {writer && (
                    <td class="actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          void change(m, {
                            status: m.status === "active" ? "suspended" : "active",
                          })
                        }
                      >
                        {m.status === "active" ? `Suspend ${m.name}` : `Reinstate ${m.name}`}
                      </button>
                      <button type="button" class="secondary" onClick={() => void recover(m)}>
                        Recovery link for {m.name}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          void deleteConfirmed(
                            { setError, setNotice },
                            {
                              question: `Remove ${m.name} (${m.email})? Their sessions end at once and their tokens stop working.`,
                              subject: "Member",
                              name: m.name,
                              request: async () =>
                                ok(
                                  await client.api.DELETE("/v2/members/{id}", {
                                    params: { path: { id: m.id } },
                                  }),
                                ),
                              removed: () => void reload(),
                            },
                          )
                        }
                      >
                        Remove {m.name}…
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {writer && (
        <form class="card" onSubmit={invite} aria-label="Invite a member">
          <h2>Invite</h2>
          <label>
            Email
            <input name="email" type="email" required maxLength={254} autoComplete="off" />
          </label>
          <label>
            Role
            <select name="role">
              {roles.map((r) => (
                <option key={r} value={r} selected={r === "editor"}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Invite</button>
          <p class="muted small">
            The link is good for 7 days, once. Owners do everything; admins everything but owners'
            business; editors videos, feeds, players, items and live streams; analysts read.
          </p>
        </form>
      )}
      {invitations.length > 0 && (
        <section class="card" aria-labelledby="open-title">
          <h2 id="open-title">Open links</h2>
          <ul>
            {invitations.map((i) => (
              <li key={i.id}>
                {i.kind === "recovery" ? "Recovery" : "Invitation"}: {i.email} as {i.role}, by{" "}
                {i.invitedBy}, until {formatDate(i.expiresAt)}{" "}
                {writer && (
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      void act(
                        async () =>
                          ok(
                            await client.api.DELETE("/v2/members/invitations", {
                              params: { query: { id: i.id } },
                            }),
                          ),
                        `Link for ${i.email} withdrawn.`,
                      )
                    }
                  >
                    Withdraw the link for {i.email}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {keySignIn !== null && (
        <section class="card" aria-labelledby="signin-title">
          <h2 id="signin-title">Sign-in</h2>
          <label class="inline">
            <input
              type="checkbox"
              checked={keySignIn}
              onChange={(e) => void switchKeySignIn((e.currentTarget as HTMLInputElement).checked)}
            />{" "}
            Allow signing in to the console with the API key and secret (the owner's rights)
          </label>
          <p class="muted small">Servers keep using the key and secret with the API either way.</p>
        </section>
      )}
    </>
  );
}
