import { Screen } from "../ui";

export function PatternScreen() {
  return <Screen title="Patterns and interventions" busy={false}>{null}</Screen>;
}
