import { Screen } from "../ui";

export function KpiScreen() {
  return <Screen title="KPIs" busy={false}>{null}</Screen>;
}
