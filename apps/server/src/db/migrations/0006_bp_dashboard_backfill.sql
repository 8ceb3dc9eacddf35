-- custom: readings logged before the dashboard existed get their chart values (source bp_log, keyed by
-- reading id like the write path's); the summaries are built on each user's next dashboard write or read.
INSERT INTO "dashboard_values" ("user_id", "metric", "at", "value", "source", "client_id")
SELECT "user_id", 'bp_systolic', "measured_at", "systolic", 'bp_log', "id"::text || ':systolic' FROM "bp_readings"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "dashboard_values" ("user_id", "metric", "at", "value", "source", "client_id")
SELECT "user_id", 'bp_diastolic', "measured_at", "diastolic", 'bp_log', "id"::text || ':diastolic' FROM "bp_readings"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- custom: the daily summaries of every value already stored, counted in each user's time zone.
INSERT INTO "dashboard_daily" ("user_id", "metric", "day", "source", "n", "sum", "min", "max", "last_at", "last_value")
SELECT v."user_id", v."metric", (v."at" AT TIME ZONE u."timezone")::date, v."source", count(*), sum(v."value"),
  min(v."value"), max(v."value"), max(v."at"), (array_agg(v."value" ORDER BY v."at" DESC, v."id" DESC))[1]
FROM "dashboard_values" v JOIN "users" u ON u."id" = v."user_id"
GROUP BY v."user_id", v."metric", (v."at" AT TIME ZONE u."timezone")::date, v."source";
--> statement-breakpoint
INSERT INTO "dashboard_settings" ("user_id", "summary_tz") SELECT "id", "timezone" FROM "users"
ON CONFLICT ("user_id") DO UPDATE SET "summary_tz" = excluded."summary_tz";
