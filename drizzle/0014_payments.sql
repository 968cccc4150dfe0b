CREATE TABLE "payment_providers" (
	"store" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"capture_method" text DEFAULT 'automatic' NOT NULL,
	"instructions" text,
	"publishable_key" text,
	"secret_key_last4" text,
	"secret_key_encrypted" text,
	"webhook_secret_encrypted" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	CONSTRAINT "payment_providers_store_name_pk" PRIMARY KEY("store","name"),
	CONSTRAINT "payment_providers_name_check" CHECK ("payment_providers"."name" in ('manual', 'stripe')),
	CONSTRAINT "payment_providers_capture_check" CHECK ("payment_providers"."capture_method" in ('automatic', 'manual'))
);
--> statement-breakpoint
CREATE TABLE "payment_webhook_events" (
	"store" text NOT NULL,
	"event_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_webhook_events_store_event_id_pk" PRIMARY KEY("store","event_id")
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"store" text NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"captured_amount" bigint DEFAULT 0 NOT NULL,
	"refunded_amount" bigint DEFAULT 0 NOT NULL,
	"intent_id" text,
	"client_secret" text,
	"instructions" text,
	"due_action" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone,
	CONSTRAINT "payments_store_id_pk" PRIMARY KEY("store","id"),
	CONSTRAINT "payments_status_check" CHECK ("payments"."status" in ('pending', 'authorized', 'succeeded', 'failed', 'cancelled')),
	CONSTRAINT "payments_amounts_check" CHECK ("payments"."refunded_amount" >= 0 and "payments"."refunded_amount" <= "payments"."captured_amount" and "payments"."captured_amount" <= "payments"."amount")
);
--> statement-breakpoint
ALTER TABLE "payment_providers" ADD CONSTRAINT "payment_providers_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_webhook_events" ADD CONSTRAINT "payment_webhook_events_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_store_order_id_orders_store_id_fk" FOREIGN KEY ("store","order_id") REFERENCES "public"."orders"("store","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payments_store_order_idx" ON "payments" USING btree ("store","order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_store_intent_key" ON "payments" USING btree ("store","intent_id") WHERE "payments"."intent_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_store_open_idx" ON "payments" USING btree ("store","created_at") WHERE "payments"."status" = 'pending' or "payments"."due_action" is not null;