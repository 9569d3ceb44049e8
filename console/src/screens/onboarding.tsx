import type { Me } from "../app";
import { Screen } from "../ui";

export function OnboardingScreen(_props: { me: Me }) {
  return <Screen title="Onboarding" busy={false}>{null}</Screen>;
}
