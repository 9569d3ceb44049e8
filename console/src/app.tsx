// The shell: sign in, then who is signed in, which hospital (client) the screens act for, the navigation
// and the screen of the current route.
import { useEffect, useState } from "react";
import { href, type Route, useRoute } from "./router";
import { hasSession, mutate, onSignedOut, type Out, query, setClient, setSession } from "./rpc";
import { CaseScreen } from "./screens/case";
import { KpiScreen } from "./screens/kpis";
import { OnboardingScreen } from "./screens/onboarding";
import { PatternScreen } from "./screens/patterns";
import { PayerScreen } from "./screens/payers";
import { SignIn } from "./screens/sign_in";
import { UploadScreen, UploadsScreen } from "./screens/uploads";
import { WorklistScreen } from "./screens/worklist";
import { ErrorNote, Loading } from "./ui";

export type Me = Out<"securityContext.current">;
type Clients = Out<"organizations.listClients">;

const NAV: { route: Route; label: string; adminOnly?: boolean }[] = [
  { route: { screen: "worklist" }, label: "Worklist" },
  { route: { screen: "uploads" }, label: "Uploads" },
  { route: { screen: "kpis" }, label: "KPIs" },
  { route: { screen: "payers" }, label: "Payers" },
  { route: { screen: "patterns" }, label: "Patterns" },
  { route: { screen: "onboarding" }, label: "Onboarding", adminOnly: true },
];

export function App() {
  const [signedIn, setSignedIn] = useState(hasSession);
  useEffect(() => onSignedOut(() => setSignedIn(false)), []);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return <Shell onSignOut={() => setSignedIn(false)} />;
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const [me, setMe] = useState<Me | null>(null);
  const [clients, setClients] = useState<Clients>([]);
  const [error, setError] = useState<string | null>(null);
  const [clientId, setClientId] = useState<number | null>(null);

  useEffect(() => {
    let live = true;
    setClient(clientId);
    Promise.all([query("securityContext.current"), query("organizations.listClients")]).then(
      ([current, list]) => {
        if (!live) return;
        setMe(current);
        setClients(list);
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [clientId]);

  const signOut = async () => {
    try {
      await mutate("auth.logout");
    } finally {
      setSession(null);
      onSignOut();
    }
  };

  if (error) return <ErrorNote error={error} />;
  if (!me) return <Loading label="Loading your workspace" />;
  const admin = me.roles.includes("admin");
  return (
    <>
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Denial console</span>
        <nav aria-label="Screens">
          <ul>
            {NAV.filter((n) => admin || !n.adminOnly).map((n) => (
              <li key={n.label}>
                <a
                  href={href(n.route)}
                  aria-current={sameScreen(route, n.route) ? "page" : undefined}
                >
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <label htmlFor="client-picker" className="visually-hidden">
            Hospital
          </label>
          <select
            id="client-picker"
            value={me.clientId}
            onChange={(e) => setClientId(Number(e.target.value))}
          >
            {clients.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <span className="user" title={me.roles.join(", ")}>
            {me.email}
          </span>
          <button type="button" className="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <Current route={route} me={me} key={`${me.clientId}:${href(route)}`} />
    </>
  );
}

function sameScreen(a: Route, b: Route): boolean {
  const group = (r: Route) => (r.screen === "case" ? "worklist" : r.screen === "upload" ? "uploads" : r.screen);
  return group(a) === group(b);
}

function Current({ route, me }: { route: Route; me: Me }) {
  switch (route.screen) {
    case "worklist":
      return <WorklistScreen me={me} />;
    case "case":
      return <CaseScreen id={route.id} me={me} />;
    case "uploads":
      return <UploadsScreen />;
    case "upload":
      return <UploadScreen id={route.id} />;
    case "kpis":
      return <KpiScreen />;
    case "payers":
      return <PayerScreen />;
    case "patterns":
      return <PatternScreen />;
    case "onboarding":
      return <OnboardingScreen me={me} />;
  }
}
