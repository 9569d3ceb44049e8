// Hash routes (#/cases/12): the server serves one page, and a route holds only ids and screen names,
// never a name, a member id or anything else of a patient's.
import { useEffect, useState } from "react";

export type Route =
  | { screen: "worklist" }
  | { screen: "case"; id: number }
  | { screen: "uploads" }
  | { screen: "upload"; id: number }
  | { screen: "kpis" }
  | { screen: "payers" }
  | { screen: "patterns" }
  | { screen: "onboarding" };

export function parse(hash: string): Route {
  const [screen, id] = hash.replace(/^#\/?/, "").split("/");
  const n = Number(id);
  if (screen === "cases" && Number.isInteger(n) && n > 0) return { screen: "case", id: n };
  if (screen === "uploads" && Number.isInteger(n) && n > 0) return { screen: "upload", id: n };
  if (screen === "uploads" || screen === "kpis" || screen === "payers" || screen === "patterns") return { screen };
  if (screen === "onboarding") return { screen };
  return { screen: "worklist" };
}

export function href(route: Route): string {
  switch (route.screen) {
    case "case":
      return `#/cases/${route.id}`;
    case "upload":
      return `#/uploads/${route.id}`;
    default:
      return `#/${route.screen}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const changed = () => {
      setRoute(parse(location.hash));
      // Keyboard and screen-reader users land on the new screen, not on the link they followed.
      requestAnimationFrame(() => document.getElementById("main")?.focus());
    };
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return route;
}
