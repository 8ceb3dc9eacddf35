import { useQuery } from "@tanstack/react-query";
import type { SocialProvidersSchema } from "@tonus/contract";
import { API } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import type { z } from "zod";
import { withQuery } from "../../app/access.ts";
import { apiRequest } from "../../shared/api/client.ts";

type SocialProviders = z.infer<typeof SocialProvidersSchema>;

/** Provider buttons appear only when the server lists any (spec §2: sign-in with social providers). */
export function SocialButtons({ destination }: { destination: string | undefined }) {
  const { t } = useTranslation();
  const providers = useQuery({
    queryKey: ["social-providers"],
    queryFn: () => apiRequest<SocialProviders>(API.socialProviders, { isDataCall: false }),
    staleTime: 5 * 60_000,
    retry: false,
  });
  const list = providers.data?.results ?? [];
  if (list.length === 0) return null;
  return (
    <div className="stack social">
      <p className="muted social__or">{t("auth.social.or")}</p>
      {list.map((provider) => (
        <a
          key={provider.id}
          className="btn btn--secondary btn--block"
          href={withQuery(API.socialStart.replace(":provider", encodeURIComponent(provider.id)), {
            destination,
          })}
        >
          {t("auth.social.continue_with", { provider: provider.name })}
        </a>
      ))}
    </div>
  );
}
