// The publisher console: a single page app at /console/ (hash routes, so the worker serves one
// page). It learns its session from the cookie (GET /v2/console/session/status) and shows
// sign-in without one.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { anonymous, can, ok, type Session, session, useSession } from "./api";
import "./console.css";
import { Accept } from "./pages/accept";
import { Account } from "./pages/account";
import { Analytics } from "./pages/analytics";
import { Audit } from "./pages/audit";
import { Feeds } from "./pages/feeds";
import { Items } from "./pages/items";
import { Library } from "./pages/library";
import { GoLive } from "./pages/live";
import { Members } from "./pages/members";
import { Players } from "./pages/players";
import { Settings } from "./pages/settings";
import { SignIn } from "./pages/signin";
import { stopUploads, Upload } from "./pages/upload/view";
import { VideoPage } from "./pages/video";

const PAGES = [
  ["library", "Library"],
  ["upload", "Upload"],
  ["live", "Go live"],
  ["feeds", "Feeds"],
  ["players", "Players"],
  ["items", "Items"],
  ["analytics", "Analytics"],
  ["settings", "Settings"],
  ["members", "Members"],
  ["audit", "Audit log"],
  ["account", "Your sign-in"],
] as const;

/** What a page needs (docs/api.md, the roles matrix): the console shows only what the session may use. */
const NEEDS: Partial<Record<(typeof PAGES)[number][0], string>> = {
  upload: "content:write",
  live: "content:write",
  settings: "settings:read",
  members: "members:read",
  audit: "audit:read",
};
const allowed = (id: string) => {
  const needs = NEEDS[id as keyof typeof NEEDS];
  return !needs || can(needs);
};

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return hash.replace(/^#\/?/, "") || "library";
}

function Page({ route }: { route: string }) {
  const [name, arg, extra] = route.split("/");
  if (name && !allowed(name))
    return (
      <p role="alert" class="error">
        Your role does not give you this page.
      </p>
    );
  switch (name) {
    case "upload":
      return <Upload />;
    case "video":
      return (
        <VideoPage
          contentKey={decodeURIComponent(arg ?? "")}
          at={extra === undefined ? undefined : Number(extra)}
        />
      );
    case "live":
      return <GoLive contentKey={arg ? decodeURIComponent(arg) : undefined} />;
    case "feeds":
      return <Feeds />;
    case "players":
      return <Players />;
    case "items":
      return <Items />;
    case "analytics":
      return <Analytics />;
    case "settings":
      return <Settings />;
    case "members":
      return <Members />;
    case "audit":
      return <Audit />;
    case "account":
      return <Account />;
    default:
      return <Library />;
  }
}

function App() {
  const [state, setState] = useState<"loading" | "out" | "in">("loading");
  const route = useHash();

  useEffect(() => {
    // The status endpoint answers 200 signed in or not: a signed-out first load logs no failed
    // request in the browser's console.
    anonymous.api.GET("/v2/console/session/status").then(
      (r) => {
        const current = r.data?.session ?? null;
        if (current) useSession(current);
        setState(current ? "in" : "out");
      },
      () => setState("out"),
    );
    // Any answer 401 (the session ended elsewhere, or was revoked) returns to sign-in.
    const out = () => {
      useSession(null);
      setState("out");
    };
    window.addEventListener("console:signed-out", out);
    return () => window.removeEventListener("console:signed-out", out);
  }, []);

  // Each page's title names it, for the tab and for screen readers.
  useEffect(() => {
    const [name] = route.split("/");
    const current =
      name === "video"
        ? "Video"
        : name === "accept"
          ? "Accept an invitation"
          : PAGES.find(([id]) => id === name)?.[1];
    document.title =
      state === "in"
        ? `${current ?? "Library"} · Publisher console`
        : "Sign in · Publisher console";
  }, [route, state]);

  if (state === "loading") return <p class="loading">Loading the console…</p>;
  const [routeName0, linkToken] = route.split("/");
  if (routeName0 === "accept" && linkToken) {
    return (
      <Accept
        token={linkToken}
        onSignedIn={(s: Session) => {
          useSession(s);
          setState("in");
        }}
      />
    );
  }
  if (state === "out") {
    return (
      <SignIn
        onSignedIn={(s: Session) => {
          useSession(s);
          setState("in");
        }}
      />
    );
  }

  const signOut = async () => {
    stopUploads();
    await anonymous.api
      .DELETE("/v2/console/session")
      .then(ok)
      .catch(() => undefined);
    useSession(null);
    setState("out");
  };

  const [routeName] = route.split("/");
  const active = routeName === "video" ? "library" : routeName;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Publisher console</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.filter(([id]) => allowed(id)).map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={active === id ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who" data-testid="who">
          {session?.member ? `${session.member.name} (${session.member.role}), ` : ""}
          {session?.name}{" "}
          <span class="muted">
            ({session?.organizationKey}
            {session?.subOrganization ? ` / ${session.subOrganization.name}` : ""})
          </span>
        </span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

// The console's own client (anonymous) is created before any session; the app element is the page's.
render(<App />, document.getElementById("app")!);
