import { StaticText } from "./StaticText.tsx";

export default function PrivacyPolicyPage() {
  return <StaticText textKey="legal.privacy" />;
}
