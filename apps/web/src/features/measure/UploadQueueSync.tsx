import { useEffect } from "react";
import { useAuth } from "../auth/use-auth.ts";
import { useProfile } from "../profile/use-profile.ts";
import { setQueueOwner } from "./measure-api.ts";

/**
 * Mounted by the app shell on every page: tells the offline queue who is signed in, so measurements
 * taken offline are sent as soon as the app starts (on whatever page), and only into the account they
 * were taken in.
 */
export function UploadQueueSync() {
  const auth = useAuth();
  const profile = useProfile();
  const id = auth.userType === "full" ? (profile.data?.id ?? null) : null;
  useEffect(() => setQueueOwner(id), [id]);
  return null;
}
