import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { NotificationsCard } from "../notifications/NotificationsCard.tsx";
import { ConnectedServices } from "../oauth/ConnectedServices.tsx";
import { PasswordChangeForm } from "./PasswordChangeForm.tsx";
import { ProfileSummary } from "./ProfileSummary.tsx";
import { UserpicUpload } from "./UserpicUpload.tsx";
import { useProfile } from "./use-profile.ts";

export default function ProfilePage() {
  const { t } = useTranslation();
  const profile = useProfile();
  if (profile.isPending) return <LoadingState />;
  if (profile.isError) return <Alert status="error">{t("profile.load_failed")}</Alert>;
  return (
    <>
      <Card title={t("profile.photo.title")}>
        <UserpicUpload profile={profile.data} />
      </Card>
      <Card title={t("profile.summary.title")}>
        <ProfileSummary profile={profile.data} />
        <div className="actions">
          <Link className="btn btn--secondary" to="/user/personal">
            {t("profile.summary.edit")}
          </Link>
          <Link className="btn btn--ghost" to="/user/units">
            {t("nav.units")}
          </Link>
        </div>
      </Card>
      <Card title={t("profile.password.title")}>
        <PasswordChangeForm />
      </Card>
      <NotificationsCard />
      <ConnectedServices />
    </>
  );
}
