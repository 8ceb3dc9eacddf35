import type { AcademyMaterialItem } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { usePageSubject } from "../../shared/ui/page-subject.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useAuth } from "../auth/use-auth.ts";
import { materialPath, resumeTarget, useCourse } from "./academy-api.ts";
import { ProgressLine } from "./ProgressLine.tsx";
import { useRouteParams } from "./use-route-params.ts";
import "./academy.css";

/** /lms/courses/{courseId}: free access; progress and "continue" for signed-in people. */
export default function CoursePage() {
  const { t } = useTranslation();
  const { courseId = "" } = useRouteParams();
  const auth = useAuth();
  const course = useCourse(courseId, getCurrentLanguage());
  const title = course.data?.title;

  usePageSubject(title);

  if (course.isPending) return <LoadingState />;
  if (course.isError) return <AcademyLoadError error={course.error} onRetry={() => void course.refetch()} />;

  const data = course.data;
  const next = resumeTarget(data.materials);
  const isSignedIn = auth.userType === "full";
  const hasStarted = data.materials.some((material) => material.state !== 0);
  return (
    <article className="academy-course-page">
      <Breadcrumbs />
      <h2>{data.title}</h2>
      <p>{data.description}</p>
      {isSignedIn && <ProgressLine finished={data.materials_finished} total={data.materials_total} />}
      {next && (
        <p className="actions">
          <Link className="btn btn--primary" to={materialPath(next.id, data.id)}>
            {hasStarted ? t("academy.continue") : t("academy.start")}
          </Link>
        </p>
      )}
      {!isSignedIn && <SignInToTrack />}
      {data.materials.length === 0 ? (
        <p className="empty-state">{t("academy.no_materials")}</p>
      ) : (
        <ol className="academy-materials">
          {data.materials.map((material, index) => (
            <MaterialRow key={material.id} material={material} courseId={data.id} number={index + 1} />
          ))}
        </ol>
      )}
    </article>
  );
}

function MaterialRow({
  material,
  courseId,
  number,
}: {
  material: AcademyMaterialItem;
  courseId: string;
  number: number;
}) {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const isMissingHere = !material.available_languages.includes(language);
  return (
    <li className={`academy-material academy-material--state-${material.state}`}>
      <span className="academy-material__state" aria-hidden="true">
        {material.state === 4 ? "✓" : number}
      </span>
      <div>
        <Link to={materialPath(material.id, courseId)}>{material.title}</Link>
        <p className="academy-material__meta muted">
          {t(`academy.kind.${material.kind}`)} · {t("academy.minutes", { count: material.duration_min })}
          {material.pro && <> · {t("academy.pro")}</>}
          {" · "}
          {t(`academy.state.${material.state}`)}
          {isMissingHere && <> · {t("academy.other_language_only")}</>}
        </p>
      </div>
    </li>
  );
}

export function Breadcrumbs({ course }: { course?: { id: string; title: string } }) {
  const { t } = useTranslation();
  const auth = useAuth();
  return (
    <nav aria-label={t("academy.breadcrumbs")} className="academy-breadcrumbs">
      {auth.userType === "full" && <Link to="/lms/courses">{t("academy.title")}</Link>}
      {course && (
        <>
          {auth.userType === "full" && <span aria-hidden="true"> / </span>}
          <Link to={`/lms/courses/${encodeURIComponent(course.id)}`}>{course.title}</Link>
        </>
      )}
    </nav>
  );
}

/** For visitors: sign in (and come back here) to keep progress. */
export function SignInToTrack() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <p className="muted">
      <Link to={`/user/login?destination=${encodeURIComponent(pathname)}`}>
        {t("academy.sign_in_to_track")}
      </Link>
    </p>
  );
}

export function AcademyLoadError({ error, onRetry }: { error: Error; onRetry: () => void }) {
  const { t } = useTranslation();
  if (error instanceof ApiError && error.status === 404) {
    return (
      <Alert status="info">
        <p>{t("academy.not_found")}</p>
        <Link to="/lms/courses">{t("academy.all_courses")}</Link>
      </Alert>
    );
  }
  return (
    <Alert status="error">
      <p>{t("academy.load_failed")}</p>
      <Button variant="secondary" onClick={onRetry}>
        {t("common.retry")}
      </Button>
    </Alert>
  );
}
