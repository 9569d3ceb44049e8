import { Screen } from "../ui";

export function UploadsScreen() {
  return <Screen title="Uploads" busy={false}>{null}</Screen>;
}

export function UploadScreen(_props: { id: number }) {
  return <Screen title="Upload" busy={false}>{null}</Screen>;
}
