CREATE TABLE "images" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"content_type" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "images_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "staff" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'invited' NOT NULL,
	"password_hash" text,
	"invitation_hash" text,
	"invitation_expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_sign_in_at" timestamp (3) with time zone,
	CONSTRAINT "staff_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "staff_role_check" CHECK ("staff"."role" in ('owner', 'staff')),
	CONSTRAINT "staff_status_check" CHECK ("staff"."status" in ('invited', 'active', 'disabled'))
);
--> statement-breakpoint
CREATE TABLE "staff_sessions" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"staff_id" uuid NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "staff_sessions_store_id_pk" PRIMARY KEY("store","id")
);
--> statement-breakpoint
CREATE TABLE "staff_sign_in_failures" (
	"key" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staff_sign_in_failures_key_id_pk" PRIMARY KEY("key","id")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "actor" jsonb DEFAULT '{"type":"system"}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "images" ADD CONSTRAINT "images_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff" ADD CONSTRAINT "staff_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_sessions" ADD CONSTRAINT "staff_sessions_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "staff_store_email_key" ON "staff" USING btree ("store",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "staff_invitation_hash_key" ON "staff" USING btree ("invitation_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_sessions_store_secret_hash_key" ON "staff_sessions" USING btree ("store","secret_hash");--> statement-breakpoint
CREATE INDEX "staff_sessions_store_staff_idx" ON "staff_sessions" USING btree ("store","staff_id");--> statement-breakpoint
CREATE INDEX "staff_sign_in_failures_key_at_idx" ON "staff_sign_in_failures" USING btree ("key","at");