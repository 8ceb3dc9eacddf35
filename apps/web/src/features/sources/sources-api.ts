import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  type ApiErrorBody,
  type CsvMapping,
  IMPORTS_API,
  type Import,
  type ImportList,
  SOURCES_API,
  type SourceDetail,
  type SourceList,
} from "@tonus/contract";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { readCookie } from "../../shared/api/cookies.ts";

export const SOURCES_QUERY_KEY = ["sources"] as const;
const ACTIVE = new Set(["needs_mapping", "queued", "running"]);
/** How often a running import's progress is read. */
const POLL_MS = 1000;

export const isActive = (i: Pick<Import, "status"> | null | undefined) => i != null && ACTIVE.has(i.status);

export function useSources() {
  return useQuery({
    queryKey: [...SOURCES_QUERY_KEY, "list"],
    queryFn: () => apiRequest<SourceList>(SOURCES_API.list),
  });
}

export function useSource(slug: string) {
  return useQuery({
    queryKey: [...SOURCES_QUERY_KEY, "detail", slug],
    queryFn: () => apiRequest<SourceDetail>(SOURCES_API.detail.replace(":slug", encodeURIComponent(slug))),
  });
}

const importPath = (template: string, id: string) => template.replace(":id", encodeURIComponent(id));

/** One import, read again every second while it is not finished. */
export function useImport(id: string | null, initial: Import | null) {
  return useQuery({
    queryKey: [...SOURCES_QUERY_KEY, "import", id],
    queryFn: () => apiRequest<Import>(importPath(IMPORTS_API.import, id ?? "")),
    enabled: id !== null,
    ...(initial && initial.id === id ? { initialData: initial } : {}),
    refetchInterval: (query) => (isActive(query.state.data) ? POLL_MS : false),
  });
}

/** How many of an entry's imports its page lists (the API's own cap). */
export const HISTORY_LIMIT = 50;

/** An entry's latest imports, newest first (read again whenever the sources are). */
export function useImportHistory(slug: string) {
  return useQuery({
    queryKey: [...SOURCES_QUERY_KEY, "history", slug],
    queryFn: () =>
      apiRequest<ImportList>(
        `${IMPORTS_API.imports}?${new URLSearchParams({ source: slug, limit: String(HISTORY_LIMIT) })}`,
      ),
  });
}

function useInvalidateSources() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: SOURCES_QUERY_KEY });
}

export function useSetMapping() {
  const invalidate = useInvalidateSources();
  return useMutation({
    mutationFn: ({ id, mapping }: { id: string; mapping: CsvMapping }) =>
      apiRequest<Import>(importPath(IMPORTS_API.mapping, id), { method: "POST", body: mapping }),
    onSuccess: invalidate,
  });
}

export function useCancelImport() {
  const invalidate = useInvalidateSources();
  return useMutation({
    mutationFn: (id: string) => apiRequest<Import>(importPath(IMPORTS_API.cancel, id), { method: "POST" }),
    onSuccess: invalidate,
  });
}

export type UploadProgress = { loaded: number; total: number };

/**
 * Uploads a file as an import with the upload's own progress (fetch cannot report it, so this uses
 * XMLHttpRequest with the same CSRF header and language the API client sends). Fields go before the
 * file. Answers the created import; a refusal becomes the same `ApiError` every other call gives.
 */
export function uploadImport(options: {
  file: File;
  source: string;
  language: string;
  onProgress: (p: UploadProgress) => void;
  signal?: AbortSignal;
}): Promise<Import> {
  const form = new FormData();
  form.append("source", options.source);
  form.append("time_zone", Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  form.append("recorded_at", new Date(options.file.lastModified || Date.now()).toISOString());
  form.append("file", options.file, options.file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", IMPORTS_API.imports);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("Accept-Language", options.language);
    const csrf = readCookie("csrftoken");
    if (csrf) xhr.setRequestHeader("X-CSRFToken", csrf);
    xhr.upload.onprogress = (e) =>
      options.onProgress({ loaded: e.loaded, total: e.total || options.file.size });
    xhr.onerror = () => reject(new ApiError(0, "network", null));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as Import);
      else {
        const error = (body ?? {}) as Partial<ApiErrorBody>;
        reject(
          new ApiError(
            xhr.status,
            error.code ?? (xhr.status >= 500 ? "internal" : "validation_failed"),
            error,
          ),
        );
      }
    };
    options.signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(form);
  });
}
