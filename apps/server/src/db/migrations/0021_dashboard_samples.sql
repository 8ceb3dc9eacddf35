CREATE TABLE "dashboard_samples" (
	"user_id" uuid NOT NULL,
	"source" text NOT NULL,
	"metric" text NOT NULL,
	"day" date NOT NULL,
	"n" integer NOT NULL,
	"at_ms" bigint[] NOT NULL,
	"vals" double precision[] NOT NULL,
	"keys" text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dashboard_samples_user_id_source_metric_day_pk" PRIMARY KEY("user_id","source","metric","day")
);
--> statement-breakpoint
-- Stored as they are: PostgreSQL's compression finds little to take out of these arrays and costs a bulk
-- write most of its time trying.
ALTER TABLE "dashboard_samples" ALTER COLUMN "at_ms" SET STORAGE EXTERNAL, ALTER COLUMN "vals" SET STORAGE EXTERNAL, ALTER COLUMN "keys" SET STORAGE EXTERNAL;
--> statement-breakpoint
-- Every dashboard value, whichever store holds it, one row each (schema.ts `dashboardValuesAll`).
CREATE VIEW "dashboard_values_all" AS
  SELECT "user_id", "metric", "at", "value", "source", "client_id" FROM "dashboard_values"
  UNION ALL
  SELECT d."user_id", d."metric", to_timestamp(u.a / 1000) + (u.a % 1000) * interval '1 millisecond', u.v, d."source", u.k
  FROM "dashboard_samples" d CROSS JOIN LATERAL unnest(d."at_ms", d."vals", d."keys") AS u(a, v, k);
