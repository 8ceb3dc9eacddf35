import type { QuizAnswers, QuizQuestion } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";

/**
 * A quiz: one group of radio buttons per question. After checking, each question says whether the choice
 * was right and shows its explanation; answers are saved for signed-in people (and finish the material).
 */
export function Quiz({
  questions,
  saved,
  canSave,
  isSaving,
  onSubmit,
}: {
  questions: readonly QuizQuestion[];
  saved: QuizAnswers | null;
  canSave: boolean;
  isSaving: boolean;
  onSubmit: (answers: QuizAnswers) => void;
}) {
  const { t } = useTranslation();
  const [answers, setAnswers] = useState<QuizAnswers>(saved ?? {});
  const [isChecked, setChecked] = useState(saved !== null);
  const isComplete = questions.every((question) => answers[question.id] !== undefined);
  const score = questions.filter((question) => answers[question.id] === question.correct).length;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isComplete) return;
    setChecked(true);
    if (canSave) onSubmit(answers);
  };

  return (
    <form className="card academy-quiz" onSubmit={submit} aria-labelledby="academy-quiz-title">
      <h3 id="academy-quiz-title">{t("academy.quiz.title")}</h3>
      {questions.map((question, number) => {
        const chosen = answers[question.id];
        const isRight = chosen === question.correct;
        return (
          <fieldset key={question.id} className="academy-quiz__question" disabled={isChecked}>
            <legend>
              {number + 1}. {question.question}
            </legend>
            {question.options.map((option, index) => (
              <label key={option} className="choice">
                <input
                  type="radio"
                  name={`quiz-${question.id}`}
                  value={index}
                  checked={chosen === index}
                  onChange={() => setAnswers({ ...answers, [question.id]: index })}
                />
                {option}
              </label>
            ))}
            {isChecked && chosen !== undefined && (
              <p className={isRight ? "academy-quiz__right" : "academy-quiz__wrong"}>
                <strong>{isRight ? t("academy.quiz.right") : t("academy.quiz.wrong")}</strong>{" "}
                {question.explanation}
              </p>
            )}
          </fieldset>
        );
      })}
      {isChecked ? (
        <>
          <p role="status">{t("academy.quiz.score", { count: questions.length, score })}</p>
          <Button
            variant="secondary"
            onClick={() => {
              setChecked(false);
              setAnswers({});
            }}
          >
            {t("academy.quiz.again")}
          </Button>
        </>
      ) : (
        <Button type="submit" disabled={!isComplete} isBusy={isSaving}>
          {t("academy.quiz.check")}
        </Button>
      )}
    </form>
  );
}
