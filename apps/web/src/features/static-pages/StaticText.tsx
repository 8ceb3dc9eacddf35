import { useTranslation } from "react-i18next";

type Section = { title: string; paragraphs: string[] };

/** Renders a long text kept in the catalogues as sections of paragraphs (both languages, same shape). */
export function StaticText({ textKey }: { textKey: string }) {
  const { t } = useTranslation();
  const intro = t(`${textKey}.intro`);
  const sections = t(`${textKey}.sections`, { returnObjects: true }) as unknown;
  const list = Array.isArray(sections) ? (sections as Section[]) : [];
  return (
    <article className="prose card">
      <p>{intro}</p>
      {list.map((section) => (
        <section key={section.title}>
          <h2>{section.title}</h2>
          {section.paragraphs.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
        </section>
      ))}
      <p className="muted">{t("legal.updated")}</p>
    </article>
  );
}
