import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { useConfig } from "../../shared/api/use-config.ts";
import { hasPendingDirectLogin } from "../auth/direct-login-params.ts";
import { useAuth } from "../auth/use-auth.ts";
import { useProfile } from "../profile/use-profile.ts";
import { CHAT_BOOT_DELAY_MS, decideBootedChat, isChatHiddenOn, shouldLoadChat } from "./chat-rules.ts";
import { bootChat, setChatLauncherHidden, shutdownChat } from "./intercom.ts";

/** The Messenger of this page: for whom it was booted, and whether its launcher is hidden. */
const chat: { bootedFor: string | null; launcherHidden: boolean } = {
  bootedFor: null,
  launcherHidden: false,
};

/**
 * The support chat (Intercom). Without `intercom_key` nothing happens: no script, no request. For a full
 * user it boots 2 s after the page is ready with the user id and the profile's `hmac` (identity
 * verification); it hides its launcher where the spec hides the widget and shuts down when the person
 * logs out (or another person signs in), so the next visitor of this browser sees nothing of theirs.
 */
export function ChatWidget() {
  const config = useConfig();
  const auth = useAuth();
  const profile = useProfile();
  const { i18n } = useTranslation();
  const { pathname } = useLocation();
  const key = config.data?.intercom_key ?? null;
  const url = config.data?.chat_widget_url ?? null;
  const isWanted = shouldLoadChat({
    intercomKey: key,
    widgetUrl: url,
    userType: auth.userType,
    pathname,
    hasPendingDirectLogin: hasPendingDirectLogin(),
  });
  const userId = auth.userType === "full" ? (profile.data?.id ?? null) : null;

  // An already booted Messenger follows the page and the person.
  useEffect(() => {
    document.documentElement.dataset.chatHidden = String(isChatHiddenOn(pathname));
    if (!chat.bootedFor) return;
    // The profile is refetched after sign-in; until it answers, the person is not known to have changed.
    const current = auth.userType === "full" && userId === null ? chat.bootedFor : userId;
    const action = decideBootedChat(chat.bootedFor, chat.launcherHidden, { userId: current, pathname });
    if (action === "shutdown") {
      shutdownChat();
      chat.bootedFor = null;
      chat.launcherHidden = false;
    } else if (action) {
      setChatLauncherHidden(action === "hide");
      chat.launcherHidden = action === "hide";
    }
  }, [auth.userType, userId, pathname]);

  // Boot 2 s after load, once the profile (id and hmac) is there.
  useEffect(() => {
    if (!isWanted || chat.bootedFor || !key || !url || !profile.data) return;
    const { id, hmac, email, name } = profile.data;
    const timer = window.setTimeout(() => {
      if (chat.bootedFor) return;
      bootChat(url, {
        app_id: key,
        user_id: id,
        ...(hmac ? { user_hash: hmac } : {}),
        email,
        ...(name ? { name } : {}),
        language_override: i18n.language,
      });
      chat.bootedFor = id;
      chat.launcherHidden = false;
    }, CHAT_BOOT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [isWanted, key, url, profile.data, i18n.language]);

  return null;
}
