import { useQuery } from "@tanstack/react-query";
import type { AcademyParameterIndex } from "@tonus/contract";
import { API } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { ACADEMY_QUERY_KEY, materialPath } from "./academy-api.ts";

/** Which academy materials explain each measurement parameter; fetched once per language. */
export function useParameterMaterials() {
  const language = getCurrentLanguage();
  return useQuery({
    queryKey: [...ACADEMY_QUERY_KEY, "parameters", language],
    queryFn: () => apiRequest<AcademyParameterIndex>(API.academyParameters, { query: { language } }),
    staleTime: 10 * 60_000,
  });
}

/**
 * "Learn more" links from a measurement parameter (e.g. `rmssd`) to the academy materials whose front
 * matter lists it. Renders nothing while loading, on error, or when no material explains it.
 */
export function LearnMore({ parameter }: { parameter: string }) {
  const { t } = useTranslation();
  const index = useParameterMaterials();
  const links = index.data?.[parameter] ?? [];
  if (links.length === 0) return null;
  return (
    <p className="academy-learn-more">
      {t("academy.learn_more")}{" "}
      {links.map((link, position) => (
        <span key={link.id}>
          {position > 0 && ", "}
          <Link to={materialPath(link.id, link.course)}>{link.title}</Link>
        </span>
      ))}
    </p>
  );
}
