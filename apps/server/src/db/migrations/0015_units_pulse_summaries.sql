ALTER TABLE "users" ADD COLUMN "energy_unit" text DEFAULT 'kcal' NOT NULL;--> statement-breakpoint
-- custom: a reading's pulse is a dashboard value too (metric bp_pulse, source bp_log, keyed by reading id
-- like the write path's values).
INSERT INTO "dashboard_values" ("user_id", "metric", "at", "value", "source", "client_id")
SELECT "user_id", 'bp_pulse', "measured_at", "pulse", 'bp_log', "id"::text || ':pulse' FROM "bp_readings"
WHERE "pulse" IS NOT NULL
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- custom: the chart API only reads (RELIABILITY S3), so every person with values has their summaries
-- counted in their own zone here: all of them where they were never built or built in another zone,
-- and the new pulse values for everyone else. Writes keep them right from now on.
DELETE FROM "dashboard_daily" d
USING "users" u LEFT JOIN "dashboard_settings" s ON s."user_id" = u."id"
WHERE d."user_id" = u."id" AND (s."summary_tz" IS DISTINCT FROM u."timezone" OR d."metric" = 'bp_pulse');
--> statement-breakpoint
INSERT INTO "dashboard_daily" ("user_id", "metric", "day", "source", "n", "sum", "min", "max", "last_at", "last_value")
SELECT v."user_id", v."metric", (v."at" AT TIME ZONE u."timezone")::date, v."source", count(*), sum(v."value"),
  min(v."value"), max(v."value"), max(v."at"), (array_agg(v."value" ORDER BY v."at" DESC, v."id" DESC))[1]
FROM "dashboard_values" v
JOIN "users" u ON u."id" = v."user_id"
LEFT JOIN "dashboard_settings" s ON s."user_id" = u."id"
WHERE s."summary_tz" IS DISTINCT FROM u."timezone" OR v."metric" = 'bp_pulse'
GROUP BY v."user_id", v."metric", (v."at" AT TIME ZONE u."timezone")::date, v."source";
--> statement-breakpoint
INSERT INTO "dashboard_settings" ("user_id", "summary_tz")
SELECT u."id", u."timezone" FROM "users" u
WHERE EXISTS (SELECT 1 FROM "dashboard_values" v WHERE v."user_id" = u."id")
ON CONFLICT ("user_id") DO UPDATE SET "summary_tz" = excluded."summary_tz";
