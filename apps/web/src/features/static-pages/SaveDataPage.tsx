import { StaticText } from "./StaticText.tsx";

export default function SaveDataPage() {
  return <StaticText textKey="legal.save_data" />;
}
