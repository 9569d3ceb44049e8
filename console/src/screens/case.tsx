import type { Me } from "../app";
import { Screen } from "../ui";

export function CaseScreen(props: { id: number; me: Me }) {
  return <Screen title={`Case ${props.id}`} busy={false}>{props.me.email}</Screen>;
}
