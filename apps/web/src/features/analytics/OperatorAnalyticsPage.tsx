import { useQuery } from "@tanstack/react-query";
import { type AnalyticsSummary, OAUTH_API } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";

/** Operators only (the server refuses everyone else): daily active users and the key funnel. */
export default function OperatorAnalyticsPage() {
  const { t, i18n } = useTranslation();
  const summary = useQuery({
    queryKey: ["operator", "analytics"],
    queryFn: () => apiRequest<AnalyticsSummary>(OAUTH_API.analyticsSummary, { query: { days: "30" } }),
  });
  if (summary.isPending) return <LoadingState />;
  if (summary.isError) {
    const forbidden = summary.error instanceof ApiError && summary.error.code === "forbidden";
    return (
      <Alert status="error">
        {t(forbidden ? "operator_analytics.forbidden" : "operator_analytics.load_failed")}
      </Alert>
    );
  }
  const number = (n: number) => n.toLocaleString(i18n.language);
  return (
    <>
      <Card title={t("operator_analytics.funnel")}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t("operator_analytics.step")}</th>
              <th scope="col">{t("operator_analytics.people")}</th>
            </tr>
          </thead>
          <tbody>
            {summary.data.funnel.map((row) => (
              <tr key={row.step}>
                <td>{t(`operator_analytics.steps.${row.step}`)}</td>
                <td>{number(row.users)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      <Card title={t("operator_analytics.dau", { days: summary.data.days })}>
        {summary.data.daily_active_users.length === 0 ? (
          <p>{t("operator_analytics.empty")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("operator_analytics.date")}</th>
                <th scope="col">{t("operator_analytics.people")}</th>
              </tr>
            </thead>
            <tbody>
              {summary.data.daily_active_users.map((row) => (
                <tr key={row.date}>
                  <td>{row.date}</td>
                  <td>{number(row.users)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}
