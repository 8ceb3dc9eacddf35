CREATE TABLE "dashboard_charts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"item" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_daily" (
	"user_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"day" date NOT NULL,
	"source" text NOT NULL,
	"n" integer NOT NULL,
	"sum" double precision NOT NULL,
	"min" double precision NOT NULL,
	"max" double precision NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"last_value" double precision NOT NULL,
	CONSTRAINT "dashboard_daily_user_id_metric_day_source_pk" PRIMARY KEY("user_id","metric","day","source")
);
--> statement-breakpoint
CREATE TABLE "dashboard_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"table_parameters" text[] DEFAULT '{}'::text[] NOT NULL,
	"source_priority" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"summary_tz" text,
	"layout_initialized" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dashboard_charts" ADD CONSTRAINT "dashboard_charts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_daily" ADD CONSTRAINT "dashboard_daily_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_settings" ADD CONSTRAINT "dashboard_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_charts_user_idx" ON "dashboard_charts" USING btree ("user_id","position");