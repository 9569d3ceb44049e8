import { Screen } from "../ui";

export function PayerScreen() {
  return <Screen title="Payer scorecard" busy={false}>{null}</Screen>;
}
