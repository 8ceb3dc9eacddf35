import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  NOTIFICATIONS_API,
  type NotificationSettings,
  type NotificationSettingsUpdate,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

export const NOTIFICATION_SETTINGS_KEY = ["notifications", "settings"] as const;

export function useNotificationSettings() {
  return useQuery({
    queryKey: NOTIFICATION_SETTINGS_KEY,
    queryFn: () => apiRequest<NotificationSettings>(NOTIFICATIONS_API.settings),
  });
}

/** Saves the changed fields; the server's answer becomes the cached settings. */
export function useSaveNotificationSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (update: NotificationSettingsUpdate) =>
      apiRequest<NotificationSettings>(NOTIFICATIONS_API.settings, { method: "PUT", body: update }),
    onSuccess: (saved) => queryClient.setQueryData(NOTIFICATION_SETTINGS_KEY, saved),
  });
}
