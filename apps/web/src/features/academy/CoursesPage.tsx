import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useCourses } from "./academy-api.ts";
import { ProgressLine } from "./ProgressLine.tsx";
import "./academy.css";

/** /lms and /lms/courses: every course with "N of M lectures" for the signed-in person. */
export default function CoursesPage() {
  const { t } = useTranslation();
  const courses = useCourses(getCurrentLanguage());

  if (courses.isPending) return <LoadingState />;
  if (courses.isError) {
    return (
      <Alert status="error">
        <p>{t("academy.load_failed")}</p>
        <Button variant="secondary" onClick={() => void courses.refetch()}>
          {t("common.retry")}
        </Button>
      </Alert>
    );
  }
  if (courses.data.length === 0) return <p className="empty-state">{t("academy.no_courses")}</p>;

  return (
    <>
      <p className="muted">{t("academy.intro")}</p>
      <ul className="academy-courses">
        {courses.data.map((course) => (
          <li key={course.id} className="card academy-course">
            {course.cover && (
              <img className="academy-course__cover" src={course.cover} alt="" loading="lazy" />
            )}
            <h2 className="card__title">
              <Link to={`/lms/courses/${encodeURIComponent(course.id)}`}>{course.title}</Link>
            </h2>
            <p>{course.description}</p>
            <ProgressLine finished={course.materials_finished} total={course.materials_total} />
          </li>
        ))}
      </ul>
    </>
  );
}
