/** API paths, shared by server routes and the web client so neither spells them twice. */
export const API = {
  health: "/healthz",
  configEnv: "/dashboard_api/v1/config/env/",
  session: "/dashboard_api/v1/auth/session/",
  csrf: "/dashboard_api/v1/auth/csrf/",
  register: "/dashboard_api/v1/auth/registration/",
  signin: "/dashboard_api/v1/auth/signin/",
  logout: "/dashboard_api/v1/user/logout/",
  passwordRecover: "/dashboard_api/v1/auth/password/recover/",
  passwordReset: "/dashboard_api/v1/auth/password/reset/",
  passwordChange: "/dashboard_api/v1/user/password/",
  directLoginCode: "/dashboard_api/v1/auth/direct-login/code/",
  directLogin: "/dashboard_api/v1/auth/direct-login/",
  socialProviders: "/dashboard_api/v1/auth/social/",
  socialStart: "/dashboard_api/v1/auth/social/:provider/start/",
  socialCallback: "/dashboard_api/v1/auth/social/:provider/callback/",
  apiTokens: "/dashboard_api/v1/user/tokens/",
  apiToken: "/dashboard_api/v1/user/tokens/:id/",
  /** The signed-in user's share links (list, create); one link (revoke with DELETE). */
  shareLinks: "/dashboard_api/v1/user/shares/",
  shareLink: "/dashboard_api/v1/user/shares/:id/",
  profile: "/dashboard_api/v1/user/profile/",
  userpicUpload: "/dashboard_api/v1/user/profile/userpic/upload/",
  /** A stored profile picture; only its owner may fetch it. */
  userpicMedia: "/media/userpics/:name",
  devOutbox: "/dashboard_api/v1/dev/outbox/",
  academyCourses: "/dashboard_api/v1/academy/courses/",
  academyCourse: "/dashboard_api/v1/academy/courses/:courseId/",
  academyMaterial: "/dashboard_api/v1/academy/materials/:materialId/",
  academyProgress: "/dashboard_api/v1/academy/materials/:materialId/progress/",
  academyParameters: "/dashboard_api/v1/academy/parameters/",
  /** Images beside the academy content, by course folder and relative path. */
  academyMedia: "/media/academy/:courseId/*",
  /** The signed-in user's HRV measurements: list (GET), upload (POST, idempotent by client_id). */
  measurements: "/dashboard_api/v1/measurements/",
  /** One measurement: detail (GET), edit tags/labels/feel/mood (PATCH), delete (DELETE). */
  measurement: "/dashboard_api/v1/measurements/:id/",
  /** The one measurement a share link (kind "measurement") opens, read-only; `Authorization: Token tsh_…`. */
  sharedMeasurement: "/dashboard_api/v1/shared/measurement/",
  /** The blood-pressure log a share link (kind "bp_log") opens, read-only; `Authorization: Token tsh_…`. */
  sharedBpLog: "/dashboard_api/v1/shared/bp-log/",
  /** The shared log's averages by period (`from`, `to`, `period`, `week_start`), read with the link's token. */
  sharedBpLogAverages: "/dashboard_api/v1/shared/bp-log/averages/",
  /** The signed-in user's blood-pressure readings: list (GET), add (POST, idempotent by client_id). */
  bpReadings: "/dashboard_api/v1/bp/readings/",
  /** One reading: GET, PATCH, DELETE. */
  bpReading: "/dashboard_api/v1/bp/readings/:id/",
  /** Averages, counts and the category of the average by day, week or month over a range of local days. */
  bpAverages: "/dashboard_api/v1/bp/averages/",
  /** The dashboard's catalogue: categories, chart flows and items, has-data flags, tags (demo for free users). */
  chartFlows: "/dashboard_api/v1/charts/flows/",
  /** One data source as the charts name it; its numeric id is the second number of the path. */
  chartSource: "/dashboard_api/v1/charts/sources/:sourceId/",
  /** One chunk of a chart's series: `item`, local `from`/`to`, `period`, `week_start`, `chunk`, `tags`. */
  chartData: "/dashboard_api/v1/charts/data/",
  /** Raw samples of a short range, downsampled keeping peaks. */
  chartIntraday: "/dashboard_api/v1/charts/intraday/",
  /** The person's dashboard (GET): charts in order, table parameters, source priorities. */
  chartLayout: "/dashboard_api/v1/charts/layout/",
  chartLayoutCharts: "/dashboard_api/v1/charts/layout/charts/",
  chartLayoutChart: "/dashboard_api/v1/charts/layout/charts/:id/",
  chartLayoutMove: "/dashboard_api/v1/charts/layout/charts/:id/move/",
  chartLayoutTable: "/dashboard_api/v1/charts/layout/table/",
  chartLayoutPriority: "/dashboard_api/v1/charts/layout/priority/",
  /** The stats table (spec §3): one row per period, the table's parameters as columns; CSV export. */
  chartTable: "/dashboard_api/v1/charts/table/",
  chartTableExport: "/dashboard_api/v1/charts/table/export/",
  /** Values typed in by the person: list (GET), add (POST, idempotent by client_id); one (DELETE). */
  chartValues: "/dashboard_api/v1/charts/values/",
  chartValue: "/dashboard_api/v1/charts/values/:id/",
  /** Batches of samples, RR measurements and blood-pressure readings from the companion and other clients (`Authorization: Token tok_…`, `Idempotency-Key`). */
  ingest: "/dashboard_api/v1/ingest/",
} as const;

/**
 * The web pages a share link opens (the token in the address fragment). They are served with
 * `X-Robots-Tag: noindex, nofollow`, `Referrer-Policy: no-referrer` and `Cache-Control: no-store`, and
 * load nothing from other origins (no chat widget): RELIABILITY H1/H3.
 */
export const SHARE_PAGE_PATHS = ["/share-measurement", "/share-bp-log"] as const;

/** Whether `pathname` is one of the share pages (with or without a trailing slash). */
export function isSharePagePath(pathname: string): boolean {
  const path = pathname.split("?")[0]?.replace(/\/+$/, "") ?? "";
  return (SHARE_PAGE_PATHS as readonly string[]).includes(path);
}
