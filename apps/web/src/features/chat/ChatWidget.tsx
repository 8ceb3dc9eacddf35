import { useEffect } from "react";
import { useLocation } from "react-router";
import { useConfig } from "../../shared/api/use-config.ts";
import { hasPendingDirectLogin } from "../auth/direct-login-params.ts";
import { useAuth } from "../auth/use-auth.ts";
import { useProfile } from "../profile/use-profile.ts";
import { CHAT_BOOT_DELAY_MS, shouldLoadChat } from "./chat-rules.ts";

let isLoaded = false;

type ChatWindow = Window & { intercomSettings?: Record<string, string> };

/** Loads the operator's chat script once, 2 s after the page is ready, for signed-in people only. */
export function ChatWidget() {
  const config = useConfig();
  const auth = useAuth();
  const profile = useProfile();
  const { pathname } = useLocation();
  const isWanted = shouldLoadChat({
    intercomKey: config.data?.intercom_key,
    widgetUrl: config.data?.chat_widget_url,
    userType: auth.userType,
    pathname,
    hasPendingDirectLogin: hasPendingDirectLogin(),
  });

  useEffect(() => {
    document.documentElement.dataset.chatHidden = String(!isWanted);
    if (!isWanted || isLoaded || !config.data || !profile.data) return;
    const { intercom_key: key, chat_widget_url: url } = config.data;
    const { hmac, email, id } = profile.data;
    const timer = window.setTimeout(() => {
      if (isLoaded || !key || !url) return;
      isLoaded = true;
      (window as ChatWindow).intercomSettings = { app_id: key, user_id: id, email, user_hash: hmac };
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      document.body.appendChild(script);
    }, CHAT_BOOT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [isWanted, config.data, profile.data]);

  return null;
}
