import type { AcademyMaterialResponse, Locale } from "@tonus/contract";
import { type MouseEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { findRoute } from "../../app/routes.ts";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { usePageSubject } from "../../shared/ui/page-subject.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useAuth } from "../auth/use-auth.ts";
import { materialPath, useCourse, useMaterial, useUpdateProgress } from "./academy-api.ts";
import { AcademyLoadError, Breadcrumbs, SignInToTrack } from "./CoursePage.tsx";
import { Pacer } from "./Pacer.tsx";
import { Quiz } from "./Quiz.tsx";
import { useRouteParams } from "./use-route-params.ts";
import "./academy.css";

/**
 * /lms/courses/{courseId}/{materialId} and /lms/materials/{materialId}: free access. Opening a material
 * marks it in progress for a signed-in person; finishing it (or answering its quiz) sets state 4.
 */
export default function MaterialPage() {
  const { materialId = "", courseId } = useRouteParams();
  const appLanguage = getCurrentLanguage();
  const [chosenLanguage, setChosenLanguage] = useState<Locale | null>(null);
  const language = chosenLanguage ?? appLanguage;
  const material = useMaterial(materialId, language);
  const title = material.data?.title;

  usePageSubject(title);

  if (material.isPending) return <LoadingState />;
  if (material.isError)
    return <AcademyLoadError error={material.error} onRetry={() => void material.refetch()} />;
  return (
    <MaterialView
      key={`${material.data.id}:${language}`}
      material={material.data}
      courseId={courseId ?? material.data.course}
      onReadIn={setChosenLanguage}
    />
  );
}

function MaterialView({
  material,
  courseId,
  onReadIn,
}: {
  material: AcademyMaterialResponse;
  courseId: string;
  onReadIn: (language: Locale) => void;
}) {
  const { t } = useTranslation();
  const auth = useAuth();
  const isSignedIn = auth.userType === "full";
  const course = useCourse(courseId, getCurrentLanguage());
  const progress = useUpdateProgress(material.id);
  const [state, setState] = useState(material.state);

  // Opening a material the person has not started puts it in progress, once.
  const markedOpen = useRef(false);
  const { mutate } = progress;
  useEffect(() => {
    if (!isSignedIn || !material.available || material.locked || markedOpen.current) return;
    markedOpen.current = true;
    if (material.state === 0) mutate({ state: 1 }, { onSuccess: (answer) => setState(answer.state) });
  }, [isSignedIn, material, mutate]);

  const finish = () => progress.mutate({ state: 4 }, { onSuccess: (answer) => setState(answer.state) });
  const siblings = course.data?.materials ?? [];
  const index = siblings.findIndex((item) => item.id === material.id);
  const previous = index > 0 ? siblings[index - 1] : undefined;
  const next = index >= 0 ? siblings[index + 1] : undefined;

  return (
    <article className="academy-material-page">
      <Breadcrumbs course={course.data ? { id: course.data.id, title: course.data.title } : undefined} />
      <h2>{material.title}</h2>
      <p className="muted">
        {t(`academy.kind.${material.kind}`)} · {t("academy.minutes", { count: material.duration_min })}
        {material.pro && <> · {t("academy.pro")}</>}
      </p>

      {!material.available ? (
        <Alert status="info">
          <p>{t("academy.not_available_language")}</p>
          <p className="actions">
            {material.available_languages.map((other) => (
              <Button key={other} variant="secondary" onClick={() => onReadIn(other)}>
                {t(`academy.read_in.${other}`)}
              </Button>
            ))}
          </p>
        </Alert>
      ) : (
        <>
          <MaterialBody html={material.html} lang={material.language} />
          {material.locked && <LockedRemainder />}
          {!material.locked && material.pacer && <Pacer pacer={material.pacer} />}
          {!material.locked && material.quiz && (
            <Quiz
              questions={material.quiz}
              saved={material.answers}
              canSave={isSignedIn}
              isSaving={progress.isPending}
              onSubmit={(answers) =>
                progress.mutate({ state: 4, answers }, { onSuccess: (answer) => setState(answer.state) })
              }
            />
          )}
          {!material.locked && isSignedIn && !material.quiz && (
            <p className="actions">
              {state === 4 ? (
                <span className="academy-finished">{t("academy.finished")}</span>
              ) : (
                <Button onClick={finish} isBusy={progress.isPending}>
                  {t("academy.mark_finished")}
                </Button>
              )}
            </p>
          )}
          {progress.isError && (
            <Alert status="error">
              <p>{t("academy.save_failed")}</p>
            </Alert>
          )}
          {!isSignedIn && <SignInToTrack />}
        </>
      )}

      {(previous || next) && (
        <nav className="academy-pager" aria-label={t("academy.pager")}>
          {previous ? (
            <Link to={materialPath(previous.id, courseId)} rel="prev">
              ← {previous.title}
            </Link>
          ) : (
            <span />
          )}
          {next && (
            <Link to={materialPath(next.id, courseId)} rel="next">
              {next.title} →
            </Link>
          )}
        </nav>
      )}
    </article>
  );
}

/** The server's sanitised HTML; links to the app's own pages navigate without reloading. */
function MaterialBody({ html, lang }: { html: string; lang: Locale }) {
  const navigate = useNavigate();
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const link = (event.target as HTMLElement).closest("a");
    const href = link?.getAttribute("href");
    if (!href?.startsWith("/") || href.startsWith("//")) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    void navigate(href);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: delegates clicks of the links inside; keys reach the links themselves
    // biome-ignore lint/a11y/useKeyWithClickEvents: Enter on a link fires a click, handled here
    <div
      className="prose academy-prose"
      lang={lang}
      onClick={onClick}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: rendered by the server's escaping Markdown renderer
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

const UPGRADE_PATH = "/payment";

function LockedRemainder() {
  const { t } = useTranslation();
  return (
    <section className="card academy-locked" aria-labelledby="academy-locked-title">
      <h3 id="academy-locked-title">{t("academy.locked_title")}</h3>
      <p>{t("academy.locked_text")}</p>
      {findRoute(UPGRADE_PATH) && (
        <Link className="btn btn--primary" to={UPGRADE_PATH}>
          {t("nav.upgrade")}
        </Link>
      )}
    </section>
  );
}
