-- custom: trigger events for the blood-pressure readings stored before ifttt_events existed (0004); the
-- category is bpCategory() of packages/hrv (2018 ESC/ESH office categories), spelt out in SQL.
INSERT INTO "ifttt_events" ("user_id", "kind", "source_id", "occurred_at", "data")
SELECT "user_id", 'bp_reading', "id"::text, "measured_at",
  jsonb_strip_nulls(jsonb_build_object(
    'systolic', "systolic",
    'diastolic', "diastolic",
    'pulse', "pulse",
    'category', CASE
      WHEN "systolic" >= 140 AND "diastolic" < 90 THEN CASE
        WHEN "systolic" >= 180 THEN 'isolated_systolic_3'
        WHEN "systolic" >= 160 THEN 'isolated_systolic_2'
        ELSE 'isolated_systolic_1' END
      ELSE (ARRAY['optimal', 'normal', 'high_normal', 'grade_1', 'grade_2', 'grade_3'])[1 + GREATEST(
        CASE WHEN "systolic" >= 180 THEN 5 WHEN "systolic" >= 160 THEN 4 WHEN "systolic" >= 140 THEN 3
          WHEN "systolic" >= 130 THEN 2 WHEN "systolic" >= 120 THEN 1 ELSE 0 END,
        CASE WHEN "diastolic" >= 110 THEN 5 WHEN "diastolic" >= 100 THEN 4 WHEN "diastolic" >= 90 THEN 3
          WHEN "diastolic" >= 85 THEN 2 WHEN "diastolic" >= 80 THEN 1 ELSE 0 END)]
    END))
FROM "bp_readings"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- custom: and for the measurements, with the scores they carry; a measurement without a result yet (an
-- archive import waiting for the recompute job) gets empty data, completed from its result when polled.
INSERT INTO "ifttt_events" ("user_id", "kind", "source_id", "occurred_at", "data")
SELECT "user_id", 'hrv_measurement', "id"::text, "started_at",
  jsonb_strip_nulls(jsonb_build_object(
    'stress', CASE WHEN jsonb_typeof("result" -> 'scores' -> 'stress') = 'number' THEN "result" -> 'scores' -> 'stress' END,
    'energy', CASE WHEN jsonb_typeof("result" -> 'scores' -> 'energy') = 'number' THEN "result" -> 'scores' -> 'energy' END,
    'performance', CASE WHEN jsonb_typeof("result" -> 'scores' -> 'performance') = 'number' THEN "result" -> 'scores' -> 'performance' END,
    'heart_rate', CASE WHEN jsonb_typeof("result" -> 'values' -> 'heart_rate') = 'number' THEN "result" -> 'values' -> 'heart_rate' END,
    'rmssd', CASE WHEN jsonb_typeof("result" -> 'values' -> 'rmssd') = 'number' THEN "result" -> 'values' -> 'rmssd' END))
FROM "measurements"
ON CONFLICT DO NOTHING;
