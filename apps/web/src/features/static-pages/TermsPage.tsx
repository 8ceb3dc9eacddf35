import { StaticText } from "./StaticText.tsx";

export default function TermsPage() {
  return <StaticText textKey="legal.terms" />;
}
