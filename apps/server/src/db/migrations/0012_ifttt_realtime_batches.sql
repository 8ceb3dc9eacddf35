CREATE TABLE "ifttt_realtime_pending" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"noticed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ifttt_realtime_pending" ADD CONSTRAINT "ifttt_realtime_pending_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ifttt_realtime_pending_seq_key" ON "ifttt_realtime_pending" USING btree ("seq");