import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useAuth } from "../auth/use-auth.ts";
import { ProfileSummary } from "../profile/ProfileSummary.tsx";
import { useProfile } from "../profile/use-profile.ts";

/** Where sign-in lands: the person's profile at a glance and what they can do right now. */
export default function HomePage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const profile = useProfile();

  if (auth.isLoading) return <LoadingState />;
  if (auth.userType !== "full") {
    return (
      <Card>
        <p>{t("home.visitor.text")}</p>
        <div className="actions">
          <Link className="btn btn--primary" to="/auth/registration/">
            {t("home.visitor.register")}
          </Link>
          <Link className="btn btn--secondary" to="/auth/signin">
            {t("nav.signin")}
          </Link>
        </div>
      </Card>
    );
  }
  if (profile.isPending) return <LoadingState />;
  if (profile.isError) return <Alert status="error">{t("profile.load_failed")}</Alert>;
  const isIncomplete =
    profile.data.height === null || profile.data.weight === null || profile.data.date_of_birth === null;
  return (
    <>
      <p>{t("home.greeting", { name: profile.data.name || profile.data.email })}</p>
      {isIncomplete && <Alert status="info">{t("home.incomplete")}</Alert>}
      <Card title={t("profile.summary.title")}>
        <ProfileSummary profile={profile.data} />
      </Card>
      <Card title={t("home.actions.title")}>
        <ul className="stack" style={{ paddingLeft: 0, listStyle: "none", margin: 0 }}>
          <li>
            <Link to="/blood-pressure">{t("nav.blood_pressure")}</Link>
          </li>
          <li>
            <Link to="/user/personal">{t("home.actions.personal")}</Link>
          </li>
          <li>
            <Link to="/user/units">{t("home.actions.units")}</Link>
          </li>
          <li>
            <Link to="/user/profile">{t("home.actions.profile")}</Link>
          </li>
          <li>
            <Link to="/save-data">{t("home.actions.data")}</Link>
          </li>
        </ul>
      </Card>
    </>
  );
}
