CREATE TABLE "bp_readings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"client_id" uuid,
	"systolic" integer NOT NULL,
	"diastolic" integer NOT NULL,
	"pulse" integer,
	"measured_at" timestamp with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"arm" text,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_values" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"value" double precision NOT NULL,
	"source" text NOT NULL,
	"client_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "measurements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"source" text NOT NULL,
	"device" text,
	"started_at" timestamp with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"rr_ms" jsonb NOT NULL,
	"feel" integer,
	"mood" integer,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"labels" text[] DEFAULT '{}'::text[] NOT NULL,
	"algorithm_version" text DEFAULT '' NOT NULL,
	"result" jsonb,
	"bp_reading_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bp_readings" ADD CONSTRAINT "bp_readings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_values" ADD CONSTRAINT "dashboard_values_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "measurements" ADD CONSTRAINT "measurements_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bp_readings_client_key" ON "bp_readings" USING btree ("user_id","client_id");--> statement-breakpoint
CREATE INDEX "bp_readings_user_time_idx" ON "bp_readings" USING btree ("user_id","measured_at");--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_values_client_key" ON "dashboard_values" USING btree ("user_id","source","client_id");--> statement-breakpoint
CREATE INDEX "dashboard_values_user_metric_at_idx" ON "dashboard_values" USING btree ("user_id","metric","at");--> statement-breakpoint
CREATE UNIQUE INDEX "measurements_client_key" ON "measurements" USING btree ("user_id","client_id");--> statement-breakpoint
CREATE INDEX "measurements_user_time_idx" ON "measurements" USING btree ("user_id","started_at");--> statement-breakpoint
CREATE INDEX "measurements_version_idx" ON "measurements" USING btree ("algorithm_version");