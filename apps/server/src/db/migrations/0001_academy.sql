CREATE TABLE "academy_courses" (
	"id" text PRIMARY KEY NOT NULL,
	"position" integer NOT NULL,
	"title" jsonb NOT NULL,
	"description" jsonb NOT NULL,
	"cover" text,
	"active" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "academy_materials" (
	"id" text PRIMARY KEY NOT NULL,
	"course_id" text NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"duration_min" integer NOT NULL,
	"pro" boolean NOT NULL,
	"parameters" jsonb NOT NULL,
	"pacer" jsonb,
	"content" jsonb NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "academy_progress" (
	"user_id" uuid NOT NULL,
	"material_id" text NOT NULL,
	"state" integer DEFAULT 0 NOT NULL,
	"answers" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "academy_materials" ADD CONSTRAINT "academy_materials_course_id_academy_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."academy_courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "academy_progress" ADD CONSTRAINT "academy_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "academy_progress" ADD CONSTRAINT "academy_progress_material_id_academy_materials_id_fk" FOREIGN KEY ("material_id") REFERENCES "public"."academy_materials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "academy_materials_course_idx" ON "academy_materials" USING btree ("course_id");--> statement-breakpoint
CREATE UNIQUE INDEX "academy_progress_key" ON "academy_progress" USING btree ("user_id","material_id");